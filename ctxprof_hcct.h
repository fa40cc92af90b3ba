/* ctxprof_hcct.h - v0.1.0 - hot calling context tree (placeholder)
   SPDX-License-Identifier: MIT

   Will hold the hot calling context tree with lazy Space Saving (D'Elia et
   al., SPE 2016) and an exact calling context tree with the same API; see
   issue 5. Including it today gives ctxprof.h and nothing else. */
#ifndef CTXPROF_HCCT_H_INCLUDED
#define CTXPROF_HCCT_H_INCLUDED
#include "ctxprof.h"
#endif
