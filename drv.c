#define CTXPROF_IMPLEMENTATION
#include "/work/main/ctxprof.h"
#include <string.h>
long plain_fib0(int); long pcc_fib0(int);
__attribute__((noinline)) long run_variant(long (*f)(int), int n);
__attribute__((noinline)) long run_variant(long (*f)(int), int n) { return f(n); }
int main(int c, char **v) { (void)c; return (int)run_variant(strcmp(v[1],"pcc")==0 ? pcc_fib0 : plain_fib0, 20) & 1; }
