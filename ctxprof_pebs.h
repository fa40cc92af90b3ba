/* ctxprof_pebs.h - v0.1.0 - perf_event sample reader (placeholder)
   SPDX-License-Identifier: MIT

   Will hold the perf_event sampling reader (PEBS where the CPU has it,
   software task-clock otherwise) feeding ICPP and the HCCT; see issue 6.
   Including it today gives ctxprof.h and nothing else. */
#ifndef CTXPROF_PEBS_H_INCLUDED
#define CTXPROF_PEBS_H_INCLUDED
#include "ctxprof.h"
#endif
