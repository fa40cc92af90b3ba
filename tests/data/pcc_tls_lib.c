/* Built by test_pcc.c (pcc_tls_shared_lib) as a -fPIC shared library that
   holds ctxprof's implementation, hence the thread's ctxprof_pcc_tls. */
#define CTXPROF_IMPLEMENTATION
#include "ctxprof.h"

ctxprof_ctx lib_value(void);
ctxprof_ctx lib_value(void)
{
    return ctxprof_pcc_tls.v;
}
