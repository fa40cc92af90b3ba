/* The functions shared by bench/enc_cost.c (driver, callees) and
   bench/enc_cost_fib.c (one instrumented copy per variant). */
#ifndef ENC_COST_H_INCLUDED
#define ENC_COST_H_INCLUDED
int inner(int x);
int leaf(int x);
long fib_plain(int n);
long fib_pcc(int n);
long fib_pcce(int n);
long fib_valence(int n);
long fib_hcce(int n);
long fib_auto(int n);
int outer_plain(int x);
int outer_pcc(int x);
int outer_pcce(int x);
int outer_valence(int x);
int outer_hcce(int x);
int outer_auto(int x);
#endif
