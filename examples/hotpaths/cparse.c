/* cparse: a tolerant recursive-descent parser for C source text, used as a
   realistic workload by examples/hotpaths (profiled with the hooks) and by
   bench/cparse_bench (timed against its uninstrumented self).

   It lexes (comments, literals, every punctuator), handles preprocessor
   lines (#define records macro names, #if/#elif evaluate their constant
   expression with defined(), #ifdef/#ifndef/#else/#endif keep a condition
   stack), tracks typedef names, and parses declarations (specifiers,
   struct/union/enum bodies, declarators with parameter lists and arrays,
   initializers), function bodies (every statement) and the full expression
   grammar, one function per precedence level as in the C standard. Code it
   cannot parse (macro-heavy headers, GNU extensions) is skipped up to the
   next ';' or '}' and counted as an error, as an indexer would.

   Everything is static except the entry point, whose name is set with
   -DCPARSE_ENTRY=name, so that several copies (instrumented or not) can be
   linked into one program, and name_init, which fills the keyword table:
   the entry point does that on its first call, so a program that times or
   profiles the parser calls name_init before, to keep it out of the
   measurement. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CPARSE_NO_LOADER
#include "cparse.h"

#ifndef CPARSE_ENTRY
#define CPARSE_ENTRY cparse_run
#endif
#define CPARSE_CAT2(a, b) a##b
#define CPARSE_CAT(a, b) CPARSE_CAT2(a, b)
#define CPARSE_INIT CPARSE_CAT(CPARSE_ENTRY, _init)

enum {
    T_EOF = 0,
    T_IDENT,
    T_TYPENAME,
    T_NUMBER,
    T_STRING,
    T_CHAR,
    T_PUNCT,
    T_KEYWORD
};

enum {
    K_NONE,
    K_TYPEDEF,
    K_EXTERN,
    K_STATIC,
    K_AUTO,
    K_REGISTER,
    K_INLINE,
    K_CONST,
    K_VOLATILE,
    K_RESTRICT,
    K_VOID,
    K_CHAR,
    K_SHORT,
    K_INT,
    K_LONG,
    K_FLOAT,
    K_DOUBLE,
    K_SIGNED,
    K_UNSIGNED,
    K_BOOL,
    K_STRUCT,
    K_UNION,
    K_ENUM,
    K_IF,
    K_ELSE,
    K_WHILE,
    K_DO,
    K_FOR,
    K_SWITCH,
    K_CASE,
    K_DEFAULT,
    K_BREAK,
    K_CONTINUE,
    K_RETURN,
    K_GOTO,
    K_SIZEOF,
    K_ATTRIBUTE,
    K_ASM,
    K_EXTENSION,
    K_TYPEOF,
    K_STATIC_ASSERT,
    K_ALIGNAS,
    K_ALIGNOF,
    K_THREAD
};

typedef struct {
    int kind;     /* T_* */
    int key;      /* K_* for keywords, the punctuator code for T_PUNCT */
    const char *s; /* start in the text */
    size_t len;
    uint64_t hash; /* identifiers */
} token;

/* #if stack states */
enum { COND_WAIT, COND_LIVE, COND_DONE, COND_DEAD };

#define SYMS 8192 /* names: typedefs and macros (open addressing, never full) */

typedef struct {
    const char *p, *end;
    int bol;       /* at the beginning of a line (a '#' starts a directive) */
    token tok;     /* current token */
    int cond[64];  /* #if stack: COND_* */
    int ncond;
    uint64_t symh[SYMS];
    uint64_t symv[SYMS];      /* value of a macro defined as a number */
    unsigned char symk[SYMS]; /* 1 typedef, 2 macro */
    struct cparse_stats *st;
    int depth; /* nesting guard for pathological input */
} parser;

/* punctuators, longest first */
static const char *const puncts[] = {"...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=",
                                     ">=",  "==",  "!=",  "&&", "||", "*=", "/=", "%=", "+=",
                                     "-=",  "&=",  "^=",  "|=", "##", "[",  "]",  "(",  ")",
                                     "{",   "}",   ".",   "&",  "*",  "+",  "-",  "~",  "!",
                                     "/",   "%",   "<",   ">",  "^",  "|",  "?",  ":",  ";",
                                     "=",   ",",   "#"};
#define NPUNCT (sizeof puncts / sizeof puncts[0])

static const struct {
    const char *name;
    int key;
} keywords[] = {{"typedef", K_TYPEDEF},
                {"extern", K_EXTERN},
                {"static", K_STATIC},
                {"auto", K_AUTO},
                {"register", K_REGISTER},
                {"inline", K_INLINE},
                {"__inline", K_INLINE},
                {"__inline__", K_INLINE},
                {"const", K_CONST},
                {"__const", K_CONST},
                {"volatile", K_VOLATILE},
                {"__volatile__", K_VOLATILE},
                {"restrict", K_RESTRICT},
                {"__restrict", K_RESTRICT},
                {"__restrict__", K_RESTRICT},
                {"void", K_VOID},
                {"char", K_CHAR},
                {"short", K_SHORT},
                {"int", K_INT},
                {"long", K_LONG},
                {"float", K_FLOAT},
                {"double", K_DOUBLE},
                {"signed", K_SIGNED},
                {"__signed__", K_SIGNED},
                {"unsigned", K_UNSIGNED},
                {"_Bool", K_BOOL},
                {"struct", K_STRUCT},
                {"union", K_UNION},
                {"enum", K_ENUM},
                {"if", K_IF},
                {"else", K_ELSE},
                {"while", K_WHILE},
                {"do", K_DO},
                {"for", K_FOR},
                {"switch", K_SWITCH},
                {"case", K_CASE},
                {"default", K_DEFAULT},
                {"break", K_BREAK},
                {"continue", K_CONTINUE},
                {"return", K_RETURN},
                {"goto", K_GOTO},
                {"sizeof", K_SIZEOF},
                {"__attribute__", K_ATTRIBUTE},
                {"__attribute", K_ATTRIBUTE},
                {"__asm__", K_ASM},
                {"asm", K_ASM},
                {"__asm", K_ASM},
                {"__extension__", K_EXTENSION},
                {"__typeof__", K_TYPEOF},
                {"typeof", K_TYPEOF},
                {"_Static_assert", K_STATIC_ASSERT},
                {"_Alignas", K_ALIGNAS},
                {"_Alignof", K_ALIGNOF},
                {"__alignof__", K_ALIGNOF},
                {"_Thread_local", K_THREAD},
                {"__thread", K_THREAD}};
#define NKEYWORDS (sizeof keywords / sizeof keywords[0])

static uint64_t hash_name(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h | 1;
}

static uint64_t keyword_hash[NKEYWORDS];

void CPARSE_INIT(void);
void CPARSE_INIT(void)
{
    size_t i;
    for (i = 0; i < NKEYWORDS; i++)
        keyword_hash[i] = hash_name(keywords[i].name, strlen(keywords[i].name));
}

static int keyword_of(uint64_t h, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < NKEYWORDS; i++)
        if (keyword_hash[i] == h && strlen(keywords[i].name) == n &&
            memcmp(keywords[i].name, s, n) == 0)
            return keywords[i].key;
    return K_NONE;
}

static int sym_get(const parser *P, uint64_t h)
{
    size_t i = (size_t)h & (SYMS - 1), k;
    for (k = 0; k < SYMS && P->symh[i]; k++, i = (i + 1) & (SYMS - 1))
        if (P->symh[i] == h)
            return P->symk[i];
    return 0;
}

static void sym_set(parser *P, uint64_t h, int kind, uint64_t value)
{
    size_t i = (size_t)h & (SYMS - 1), k;
    for (k = 0; k < SYMS - 1; k++, i = (i + 1) & (SYMS - 1)) {
        if (P->symh[i] == h || !P->symh[i]) {
            P->symh[i] = h;
            P->symk[i] = (unsigned char)kind;
            P->symv[i] = value;
            return;
        }
    }
}

static uint64_t sym_value(const parser *P, uint64_t h)
{
    size_t i = (size_t)h & (SYMS - 1), k;
    for (k = 0; k < SYMS && P->symh[i]; k++, i = (i + 1) & (SYMS - 1))
        if (P->symh[i] == h)
            return P->symk[i] == 2 ? P->symv[i] : 0;
    return 0;
}

static int is_ident_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}

/* ---- lexer ---- */

static void skip_space(parser *P)
{
    for (;;) {
        const char *p = P->p;
        while (p < P->end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
            p++;
        if (p < P->end && *p == '\n') {
            P->bol = 1;
            P->p = p + 1;
            continue;
        }
        if (p + 1 < P->end && p[0] == '\\' && p[1] == '\n') {
            P->p = p + 2;
            continue;
        }
        if (p + 1 < P->end && p[0] == '/' && p[1] == '*') {
            p += 2;
            while (p + 1 < P->end && !(p[0] == '*' && p[1] == '/'))
                p++;
            P->p = p + 1 < P->end ? p + 2 : P->end; /* unclosed: the text ends it */
            continue;
        }
        if (p + 1 < P->end && p[0] == '/' && p[1] == '/') {
            while (p < P->end && *p != '\n')
                p++;
            P->p = p;
            continue;
        }
        P->p = p;
        return;
    }
}

static void lex_quoted(parser *P, char q)
{
    const char *p = P->p + 1;
    while (p < P->end && *p != q && *p != '\n') {
        if (*p == '\\' && p + 1 < P->end)
            p++;
        p++;
    }
    P->p = p < P->end ? p + 1 : p;
}

static void lex_number(parser *P)
{
    const char *p = P->p;
    while (p < P->end && (is_ident_char(*p) || *p == '.' ||
                          ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E' ||
                                                        p[-1] == 'p' || p[-1] == 'P'))))
        p++;
    P->p = p;
}

static int lex_punct(parser *P)
{
    size_t i, left = (size_t)(P->end - P->p);
    for (i = 0; i < NPUNCT; i++) {
        size_t n = strlen(puncts[i]);
        if (n <= left && memcmp(P->p, puncts[i], n) == 0) {
            P->p += n;
            return (int)i + 1;
        }
    }
    P->p++;
    return 0; /* a stray character */
}

static void directive(parser *P);

/* Whether the text at this point is compiled (deeper than 64 levels of #if
   the conditions are not tracked: live). */
static int live(const parser *P)
{
    return P->ncond == 0 || P->ncond > 64 || P->cond[P->ncond - 1] == COND_LIVE;
}

/* The next token of the live text (directives and dead #if branches are
   consumed here). */
static void next(parser *P)
{
    token *t = &P->tok;
    for (;;) {
        skip_space(P);
        if (P->p >= P->end) {
            t->kind = T_EOF;
            t->s = P->p;
            t->len = 0;
            return;
        }
        if (P->bol && *P->p == '#') {
            P->p++;
            directive(P);
            continue;
        }
        P->bol = 0;
        if (!live(P)) { /* a dead branch: skip the line */
            while (P->p < P->end && *P->p != '\n')
                P->p++;
            continue;
        }
        break;
    }
    t->s = P->p;
    P->st->tokens++;
    if (is_ident_char(*P->p) && !(*P->p >= '0' && *P->p <= '9')) {
        const char *p = P->p;
        while (p < P->end && is_ident_char(*p))
            p++;
        t->len = (size_t)(p - P->p);
        P->p = p;
        t->hash = hash_name(t->s, t->len);
        t->key = keyword_of(t->hash, t->s, t->len);
        t->kind = t->key ? T_KEYWORD : sym_get(P, t->hash) == 1 ? T_TYPENAME : T_IDENT;
        if (t->s[0] == 'L' && t->len == 1 && P->p < P->end && (*P->p == '"' || *P->p == '\'')) {
            t->kind = *P->p == '"' ? T_STRING : T_CHAR;
            lex_quoted(P, *P->p);
        }
    } else if (*P->p >= '0' && *P->p <= '9') {
        t->kind = T_NUMBER;
        lex_number(P);
    } else if (*P->p == '.' && P->p + 1 < P->end && P->p[1] >= '0' && P->p[1] <= '9') {
        t->kind = T_NUMBER;
        lex_number(P);
    } else if (*P->p == '"' || *P->p == '\'') {
        t->kind = *P->p == '"' ? T_STRING : T_CHAR;
        lex_quoted(P, *P->p);
    } else {
        t->kind = T_PUNCT;
        t->key = lex_punct(P);
    }
    t->len = (size_t)(P->p - t->s);
    P->st->checksum = (P->st->checksum * 31 + (uint64_t)t->kind * 7 + (uint64_t)t->key) ^
                      (t->kind == T_IDENT ? t->hash : 0);
}

static int is_p(const parser *P, const char *s)
{
    size_t n = strlen(s);
    return P->tok.kind == T_PUNCT && P->tok.len == n && memcmp(P->tok.s, s, n) == 0;
}

static int accept(parser *P, const char *s)
{
    if (is_p(P, s)) {
        next(P);
        return 1;
    }
    return 0;
}

static int is_k(const parser *P, int k)
{
    return P->tok.kind == T_KEYWORD && P->tok.key == k;
}

/* ---- preprocessor lines ---- */

/* A small constant-expression evaluator for #if lines, over the raw text.
   Values are intmax_t as in a compiler, held in uint64_t so that +, -, *
   and negation wrap instead of overflowing; comparisons and division
   read them as signed. */
typedef struct {
    const char *p, *end;
    const parser *P;
    int unevaluated; /* > 0 in an operand that && || ?: skip: no errors there */
    int error;       /* a division by zero was evaluated */
} ppx;

static void pp_space(ppx *x)
{
    while (x->p < x->end && (*x->p == ' ' || *x->p == '\t' ||
                             (*x->p == '\\' && x->p + 1 < x->end && x->p[1] == '\n')))
        x->p += *x->p == '\\' ? 2 : 1;
    if (x->p + 1 < x->end && x->p[0] == '/' && x->p[1] == '*') {
        x->p += 2;
        while (x->p + 1 < x->end && !(x->p[0] == '*' && x->p[1] == '/'))
            x->p++;
        x->p = x->p + 1 < x->end ? x->p + 2 : x->end; /* unterminated: the line ends it */
        pp_space(x);
    }
}

static uint64_t pp_cond(ppx *x);

static uint64_t pp_primary(ppx *x)
{
    pp_space(x);
    if (x->p >= x->end)
        return 0;
    if (*x->p == '(') {
        uint64_t v;
        x->p++;
        v = pp_cond(x);
        pp_space(x);
        if (x->p < x->end && *x->p == ')')
            x->p++;
        return v;
    }
    if (*x->p == '!') {
        x->p++;
        return !pp_primary(x);
    }
    if (*x->p == '-') {
        x->p++;
        return 0 - pp_primary(x);
    }
    if (*x->p == '~') {
        x->p++;
        return ~pp_primary(x);
    }
    if (*x->p >= '0' && *x->p <= '9') {
        uint64_t v = 0;
        if (x->p[0] == '0' && x->p + 1 < x->end && (x->p[1] == 'x' || x->p[1] == 'X')) {
            x->p += 2;
            while (x->p < x->end && is_ident_char(*x->p)) {
                int c = *x->p, d = c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
                if (d >= 0 && d < 16)
                    v = v * 16 + (uint64_t)d;
                x->p++;
            }
            return v;
        }
        while (x->p < x->end && *x->p >= '0' && *x->p <= '9')
            v = v * 10 + (uint64_t)(*x->p++ - '0');
        while (x->p < x->end && is_ident_char(*x->p)) /* suffixes */
            x->p++;
        return v;
    }
    if (is_ident_char(*x->p)) {
        const char *s = x->p;
        size_t n;
        while (x->p < x->end && is_ident_char(*x->p))
            x->p++;
        n = (size_t)(x->p - s);
        if (n == 7 && memcmp(s, "defined", 7) == 0) {
            int paren;
            pp_space(x);
            paren = x->p < x->end && *x->p == '(';
            if (paren)
                x->p++;
            pp_space(x);
            s = x->p;
            while (x->p < x->end && is_ident_char(*x->p))
                x->p++;
            n = (size_t)(x->p - s);
            pp_space(x);
            if (paren && x->p < x->end && *x->p == ')')
                x->p++;
            return sym_get(x->P, hash_name(s, n)) == 2;
        }
        if (x->p < x->end && *x->p == '(') { /* a function-like macro call: skip it */
            int d = 0;
            do {
                d += (*x->p == '(') - (*x->p == ')');
                x->p++;
            } while (x->p < x->end && d > 0 && *x->p != '\n');
            return 0;
        }
        return sym_value(x->P, hash_name(s, n)); /* 0 when unknown */
    }
    x->p++;
    return 0;
}

static int pp_op(ppx *x, const char *op)
{
    size_t n = strlen(op);
    pp_space(x);
    if ((size_t)(x->end - x->p) >= n && memcmp(x->p, op, n) == 0 &&
        !(n == 1 && x->p + 1 < x->end && (x->p[1] == op[0] || x->p[1] == '='))) {
        x->p += n;
        return 1;
    }
    return 0;
}

/* v / d or v % d, signed. Division by zero is an error where the operand
   is evaluated (0 stands in); INT64_MIN / -1 wraps, as the other operators
   do. */
static uint64_t pp_div(ppx *x, uint64_t v, int mod)
{
    uint64_t d = pp_primary(x);
    if (d == 0) {
        x->error |= !x->unevaluated;
        return 0;
    }
    if (d == UINT64_MAX) /* -1 */
        return mod ? 0 : 0 - v;
    return (uint64_t)(mod ? (int64_t)v % (int64_t)d : (int64_t)v / (int64_t)d);
}

static uint64_t pp_mul(ppx *x)
{
    uint64_t v = pp_primary(x);
    for (;;) {
        if (pp_op(x, "*"))
            v *= pp_primary(x);
        else if (pp_op(x, "/"))
            v = pp_div(x, v, 0);
        else if (pp_op(x, "%"))
            v = pp_div(x, v, 1);
        else
            return v;
    }
}

static uint64_t pp_add(ppx *x)
{
    uint64_t v = pp_mul(x);
    for (;;) {
        if (pp_op(x, "+"))
            v += pp_mul(x);
        else if (pp_op(x, "-"))
            v -= pp_mul(x);
        else
            return v;
    }
}

static uint64_t pp_rel(ppx *x)
{
    uint64_t v = pp_add(x);
    for (;;) {
        if (pp_op(x, "<="))
            v = (int64_t)v <= (int64_t)pp_add(x);
        else if (pp_op(x, ">="))
            v = (int64_t)v >= (int64_t)pp_add(x);
        else if (pp_op(x, "<"))
            v = (int64_t)v < (int64_t)pp_add(x);
        else if (pp_op(x, ">"))
            v = (int64_t)v > (int64_t)pp_add(x);
        else if (pp_op(x, "=="))
            v = v == pp_add(x);
        else if (pp_op(x, "!="))
            v = v != pp_add(x);
        else
            return v;
    }
}

static uint64_t pp_and(ppx *x)
{
    uint64_t v = pp_rel(x);
    while (pp_op(x, "&&")) {
        uint64_t w;
        x->unevaluated += !v;
        w = pp_rel(x);
        x->unevaluated -= !v;
        v = v && w;
    }
    return v;
}

static uint64_t pp_or(ppx *x)
{
    uint64_t v = pp_and(x);
    while (pp_op(x, "||")) {
        uint64_t w;
        x->unevaluated += !!v;
        w = pp_and(x);
        x->unevaluated -= !!v;
        v = v || w;
    }
    return v;
}

static uint64_t pp_cond(ppx *x)
{
    uint64_t v = pp_or(x), a, b = 0;
    if (pp_op(x, "?")) {
        x->unevaluated += !v;
        a = pp_cond(x);
        x->unevaluated -= !v;
        if (pp_op(x, ":")) {
            x->unevaluated += !!v;
            b = pp_cond(x);
            x->unevaluated -= !!v;
        }
        return v ? a : b;
    }
    return v;
}

static const char *line_end(const parser *P)
{
    const char *p = P->p;
    while (p < P->end && *p != '\n') {
        if (*p == '\\' && p + 1 < P->end && p[1] == '\n')
            p++;
        p++;
    }
    return p;
}

/* The value of the expression from P->p to e. A division by zero that is
   evaluated makes it 0 and, when errors is not NULL, counts an error there
   (a compiler rejects "#if 1/0"; a #define's body is only a guess). */
static uint64_t eval_line(const parser *P, const char *e, uint64_t *errors)
{
    ppx x;
    uint64_t v;
    memset(&x, 0, sizeof x);
    x.p = P->p;
    x.end = e;
    x.P = P;
    v = pp_cond(&x);
    if (!x.error)
        return v;
    if (errors)
        ++*errors;
    return 0;
}

static void directive(parser *P)
{
    const char *e = line_end(P), *s;
    int *top = P->ncond > 0 && P->ncond <= 64 ? &P->cond[P->ncond - 1] : NULL;
    size_t n;
    P->st->directives++;
    while (P->p < e && (*P->p == ' ' || *P->p == '\t'))
        P->p++;
    s = P->p;
    while (P->p < e && is_ident_char(*P->p))
        P->p++;
    n = (size_t)(P->p - s);
    if ((n == 2 && memcmp(s, "if", 2) == 0) || (n == 5 && memcmp(s, "ifdef", 5) == 0) ||
        (n == 6 && memcmp(s, "ifndef", 6) == 0)) {
        int c = COND_DEAD;
        if (live(P)) {
            uint64_t v;
            if (n == 2) {
                v = eval_line(P, e, &P->st->errors);
            } else {
                const char *q;
                while (P->p < e && (*P->p == ' ' || *P->p == '\t'))
                    P->p++;
                q = P->p;
                while (P->p < e && is_ident_char(*P->p))
                    P->p++;
                v = (sym_get(P, hash_name(q, (size_t)(P->p - q))) == 2) == (n == 5);
            }
            c = v ? COND_LIVE : COND_WAIT;
        }
        if (P->ncond < 64)
            P->cond[P->ncond] = c;
        P->ncond++;
    } else if (n == 4 && (memcmp(s, "elif", 4) == 0 || memcmp(s, "else", 4) == 0)) {
        if (top && *top == COND_LIVE)
            *top = COND_DONE;
        else if (top && *top == COND_WAIT)
            *top = s[2] == 'i' && eval_line(P, e, &P->st->errors) == 0 ? COND_WAIT : COND_LIVE;
    } else if (n == 5 && memcmp(s, "endif", 5) == 0) {
        if (P->ncond > 0)
            P->ncond--;
    } else if (n == 6 && memcmp(s, "define", 6) == 0 && live(P)) {
        uint64_t h;
        while (P->p < e && (*P->p == ' ' || *P->p == '\t'))
            P->p++;
        s = P->p;
        while (P->p < e && is_ident_char(*P->p))
            P->p++;
        if (P->p > s) {
            h = hash_name(s, (size_t)(P->p - s));
            sym_set(P, h, 2, *P->p == '(' ? 0 : eval_line(P, e, NULL)); /* object-like: a value */
        }
    } else if (n == 5 && memcmp(s, "undef", 5) == 0 && live(P)) {
        while (P->p < e && (*P->p == ' ' || *P->p == '\t'))
            P->p++;
        s = P->p;
        while (P->p < e && is_ident_char(*P->p))
            P->p++;
        if (P->p > s)
            sym_set(P, hash_name(s, (size_t)(P->p - s)), 3, 0);
    }
    P->p = e;
    P->bol = 1;
}

/* ---- error recovery ---- */

static void error_skip(parser *P)
{
    int d = 0;
    P->st->errors++;
    while (P->tok.kind != T_EOF) {
        if (is_p(P, "{") || is_p(P, "(") || is_p(P, "["))
            d++;
        else if (is_p(P, "}") || is_p(P, ")") || is_p(P, "]")) {
            if (d == 0) {
                if (is_p(P, "}"))
                    return;
                next(P);
                continue;
            }
            d--;
            if (d == 0 && is_p(P, "}")) {
                next(P);
                return;
            }
        } else if (d == 0 && is_p(P, ";")) {
            next(P);
            return;
        }
        next(P);
    }
}

/* (...) after __attribute__, __asm__, typeof, an unknown macro */
static void skip_parens(parser *P)
{
    int d = 0;
    if (!is_p(P, "("))
        return;
    do {
        if (is_p(P, "("))
            d++;
        else if (is_p(P, ")"))
            d--;
        next(P);
    } while (d > 0 && P->tok.kind != T_EOF);
}

/* ---- expressions ---- */

static void assignment_expr(parser *P);
static void expression(parser *P);
static void cast_expr(parser *P);
static int type_name(parser *P);
static void initializer(parser *P);
static void compound_stmt(parser *P);

static void argument_list(parser *P)
{
    if (is_p(P, ")"))
        return;
    do
        assignment_expr(P);
    while (accept(P, ","));
}

static void primary_expr(parser *P)
{
    switch (P->tok.kind) {
    case T_IDENT:
    case T_NUMBER:
    case T_CHAR:
        next(P);
        return;
    case T_STRING:
        while (P->tok.kind == T_STRING || (P->tok.kind == T_IDENT && P->tok.len > 2 &&
                                          P->tok.s[0] == 'P' && P->tok.s[1] == 'R'))
            next(P); /* adjacent literals, PRIx64-style macros */
        return;
    case T_KEYWORD:
        if (is_k(P, K_EXTENSION)) {
            next(P);
            cast_expr(P);
            return;
        }
        break;
    default:
        break;
    }
    if (accept(P, "(")) {
        if (is_p(P, "{")) /* a GNU statement expression */
            compound_stmt(P);
        else
            expression(P);
        accept(P, ")");
        return;
    }
    P->st->errors++;
    next(P);
}

static void postfix_expr(parser *P)
{
    primary_expr(P);
    for (;;) {
        if (accept(P, "[")) {
            expression(P);
            accept(P, "]");
        } else if (accept(P, "(")) {
            argument_list(P);
            accept(P, ")");
        } else if (accept(P, ".") || accept(P, "->")) {
            next(P);
        } else if (accept(P, "++") || accept(P, "--")) {
        } else {
            return;
        }
    }
}

static void unary_expr(parser *P)
{
    if (accept(P, "++") || accept(P, "--")) {
        unary_expr(P);
    } else if (is_p(P, "&") || is_p(P, "*") || is_p(P, "+") || is_p(P, "-") || is_p(P, "~") ||
               is_p(P, "!")) {
        next(P);
        cast_expr(P);
    } else if (is_k(P, K_SIZEOF) || is_k(P, K_ALIGNOF)) {
        next(P);
        if (is_p(P, "(")) {
            const char *save = P->p;
            token t = P->tok;
            next(P);
            if (type_name(P)) {
                accept(P, ")");
            } else { /* not a type: an expression in parentheses */
                P->p = save;
                P->tok = t;
                unary_expr(P);
            }
        } else {
            unary_expr(P);
        }
    } else {
        postfix_expr(P);
    }
}

static void cast_expr(parser *P)
{
    if (is_p(P, "(")) {
        const char *save = P->p;
        token t = P->tok;
        int bol = P->bol;
        next(P);
        if (type_name(P)) {
            accept(P, ")");
            if (is_p(P, "{")) /* a compound literal */
                initializer(P);
            else
                cast_expr(P);
            return;
        }
        P->p = save;
        P->tok = t;
        P->bol = bol;
    }
    unary_expr(P);
}

static void multiplicative_expr(parser *P)
{
    cast_expr(P);
    while (is_p(P, "*") || is_p(P, "/") || is_p(P, "%")) {
        next(P);
        cast_expr(P);
    }
}

static void additive_expr(parser *P)
{
    multiplicative_expr(P);
    while (is_p(P, "+") || is_p(P, "-")) {
        next(P);
        multiplicative_expr(P);
    }
}

static void shift_expr(parser *P)
{
    additive_expr(P);
    while (is_p(P, "<<") || is_p(P, ">>")) {
        next(P);
        additive_expr(P);
    }
}

static void relational_expr(parser *P)
{
    shift_expr(P);
    while (is_p(P, "<") || is_p(P, ">") || is_p(P, "<=") || is_p(P, ">=")) {
        next(P);
        shift_expr(P);
    }
}

static void equality_expr(parser *P)
{
    relational_expr(P);
    while (is_p(P, "==") || is_p(P, "!=")) {
        next(P);
        relational_expr(P);
    }
}

static void and_expr(parser *P)
{
    equality_expr(P);
    while (accept(P, "&"))
        equality_expr(P);
}

static void xor_expr(parser *P)
{
    and_expr(P);
    while (accept(P, "^"))
        and_expr(P);
}

static void or_expr(parser *P)
{
    xor_expr(P);
    while (accept(P, "|"))
        xor_expr(P);
}

static void logical_and_expr(parser *P)
{
    or_expr(P);
    while (accept(P, "&&"))
        or_expr(P);
}

static void logical_or_expr(parser *P)
{
    logical_and_expr(P);
    while (accept(P, "||"))
        logical_and_expr(P);
}

static void conditional_expr(parser *P)
{
    logical_or_expr(P);
    if (accept(P, "?")) {
        if (!is_p(P, ":"))
            expression(P);
        accept(P, ":");
        conditional_expr(P);
    }
}

static int is_assign_op(const parser *P)
{
    static const char *const ops[] = {"=", "*=", "/=", "%=", "+=", "-=",
                                      "<<=", ">>=", "&=", "^=", "|="};
    size_t i;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (is_p(P, ops[i]))
            return 1;
    return 0;
}

static void assignment_expr(parser *P)
{
    P->st->expressions++;
    if (++P->depth > 500) { /* pathological nesting */
        P->depth--;
        error_skip(P);
        return;
    }
    conditional_expr(P);
    if (is_assign_op(P)) {
        next(P);
        assignment_expr(P);
    }
    P->depth--;
}

static void expression(parser *P)
{
    do
        assignment_expr(P);
    while (accept(P, ","));
}

/* ---- declarations ---- */

static void declarator(parser *P, int abstract);
static void struct_body(parser *P);
static uint64_t last_name;
static void enum_body(parser *P);

static void attributes(parser *P)
{
    while (is_k(P, K_ATTRIBUTE) || is_k(P, K_ASM) || is_k(P, K_EXTENSION)) {
        int k = P->tok.key;
        next(P);
        if (k != K_EXTENSION)
            skip_parens(P);
    }
}

/* Typedefs declared in other files are not known (there is no #include):
   like an indexer, take an unknown identifier followed by an identifier, or
   by '*'s and an identifier, for a type name. The peek reads raw text and
   gives up at a line that starts with '#'. */
static int looks_like_type(const parser *P)
{
    const char *p = P->p, *e = P->end;
    int stars = 0;
    if (P->tok.kind != T_IDENT)
        return 0;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < e && *p == '\n') {
            p++;
            while (p < e && (*p == ' ' || *p == '\t'))
                p++;
            if (p < e && *p == '#')
                return 0;
            continue;
        }
        if (p + 1 < e && p[0] == '/' && p[1] == '*') {
            for (p += 2; p + 1 < e && !(p[0] == '*' && p[1] == '/'); p++)
                ;
            p = p + 1 < e ? p + 2 : e; /* an unclosed comment ends the text */
            continue;
        }
        if (p < e && *p == '*') {
            stars++;
            p++;
            continue;
        }
        break;
    }
    if (p >= e || !is_ident_char(*p) || (*p >= '0' && *p <= '9'))
        return 0;
    if (stars) { /* "a * b" is a declaration only if followed by ; = , [ ) */
        while (p < e && is_ident_char(*p))
            p++;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        return p < e && (*p == ';' || *p == '=' || *p == ',' || *p == '[' || *p == ')');
    }
    return 1;
}

/* Declaration specifiers; returns how many were seen, sets *is_typedef. */
static int decl_specifiers(parser *P, int *is_typedef)
{
    int n = 0, has_type = 0;
    for (;;) {
        attributes(P);
        if (P->tok.kind == T_KEYWORD) {
            switch (P->tok.key) {
            case K_TYPEDEF:
                if (is_typedef)
                    *is_typedef = 1;
                /* fall through */
            case K_EXTERN:
            case K_STATIC:
            case K_AUTO:
            case K_REGISTER:
            case K_INLINE:
            case K_CONST:
            case K_VOLATILE:
            case K_RESTRICT:
            case K_THREAD:
                next(P);
                n++;
                continue;
            case K_VOID:
            case K_CHAR:
            case K_SHORT:
            case K_INT:
            case K_LONG:
            case K_FLOAT:
            case K_DOUBLE:
            case K_SIGNED:
            case K_UNSIGNED:
            case K_BOOL:
                next(P);
                n++;
                has_type = 1;
                continue;
            case K_STRUCT:
            case K_UNION:
                next(P);
                attributes(P);
                if (P->tok.kind == T_IDENT || P->tok.kind == T_TYPENAME)
                    next(P);
                if (is_p(P, "{"))
                    struct_body(P);
                n++;
                has_type = 1;
                continue;
            case K_ENUM:
                next(P);
                attributes(P);
                if (P->tok.kind == T_IDENT || P->tok.kind == T_TYPENAME)
                    next(P);
                if (is_p(P, "{"))
                    enum_body(P);
                n++;
                has_type = 1;
                continue;
            case K_TYPEOF:
            case K_ALIGNAS:
                next(P);
                skip_parens(P);
                n++;
                has_type = 1;
                continue;
            default:
                return n;
            }
        }
        if ((P->tok.kind == T_TYPENAME || looks_like_type(P)) && !has_type) {
            if (P->tok.kind == T_IDENT)
                sym_set(P, P->tok.hash, 1, 0); /* learned */
            next(P);
            n++;
            has_type = 1;
            continue;
        }
        return n;
    }
}

static int type_name(parser *P)
{
    if (!decl_specifiers(P, NULL))
        return 0;
    declarator(P, 1);
    return 1;
}

static void parameter_list(parser *P)
{
    if (is_p(P, ")"))
        return;
    do {
        if (accept(P, "..."))
            break;
        if (!decl_specifiers(P, NULL)) {
            if (P->tok.kind == T_IDENT) /* K&R names, or macros we do not know */
                next(P);
            else {
                P->st->errors++;
                return;
            }
        }
        declarator(P, 1);
        attributes(P);
    } while (accept(P, ","));
}

static void direct_declarator_suffix(parser *P)
{
    for (;;) {
        if (accept(P, "[")) {
            while (is_k(P, K_STATIC) || is_k(P, K_CONST) || is_k(P, K_RESTRICT) ||
                   is_k(P, K_VOLATILE))
                next(P);
            if (!is_p(P, "]"))
                assignment_expr(P);
            accept(P, "]");
        } else if (accept(P, "(")) {
            uint64_t name = last_name; /* the parameters' names are not the declared one */
            parameter_list(P);
            last_name = name;
            accept(P, ")");
        } else {
            attributes(P);
            return;
        }
    }
}

/* A declarator; abstract ones (in type names, parameters) may omit the
   name. The declared name's hash is kept in last_name for typedef
   tracking. */
static void declarator(parser *P, int abstract)
{
    attributes(P);
    while (accept(P, "*")) {
        for (;;) {
            if (is_k(P, K_CONST) || is_k(P, K_VOLATILE) || is_k(P, K_RESTRICT))
                next(P);
            else if (is_k(P, K_ATTRIBUTE))
                attributes(P);
            else
                break;
        }
    }
    if (P->tok.kind == T_IDENT || (P->tok.kind == T_TYPENAME && !abstract)) {
        last_name = P->tok.hash;
        next(P);
    } else if (is_p(P, "(")) {
        const char *save = P->p;
        token t = P->tok;
        next(P);
        if (is_p(P, "*") || is_p(P, "(") || is_p(P, "[") || P->tok.kind == T_IDENT ||
            is_k(P, K_ATTRIBUTE)) {
            declarator(P, abstract);
            accept(P, ")");
        } else { /* a parameter list of an abstract function declarator */
            P->p = save;
            P->tok = t;
        }
    }
    direct_declarator_suffix(P);
}

static void initializer(parser *P)
{
    if (accept(P, "{")) {
        while (!is_p(P, "}") && P->tok.kind != T_EOF) {
            while (is_p(P, "[") || is_p(P, ".")) { /* designators */
                if (accept(P, "[")) {
                    conditional_expr(P);
                    accept(P, "]");
                } else {
                    next(P);
                    next(P);
                }
            }
            accept(P, "=");
            initializer(P);
            if (!accept(P, ","))
                break;
        }
        accept(P, "}");
    } else {
        assignment_expr(P);
    }
}

static void struct_body(parser *P)
{
    next(P); /* { */
    while (!is_p(P, "}") && P->tok.kind != T_EOF) {
        if (is_k(P, K_STATIC_ASSERT)) {
            next(P);
            skip_parens(P);
            accept(P, ";");
            continue;
        }
        if (!decl_specifiers(P, NULL)) {
            error_skip(P);
            continue;
        }
        do {
            if (!is_p(P, ":"))
                declarator(P, 1);
            if (accept(P, ":"))
                conditional_expr(P);
            attributes(P);
        } while (accept(P, ","));
        if (!accept(P, ";"))
            error_skip(P);
    }
    accept(P, "}");
    attributes(P);
}

static void enum_body(parser *P)
{
    next(P); /* { */
    while (P->tok.kind == T_IDENT || P->tok.kind == T_TYPENAME) {
        next(P);
        attributes(P);
        if (accept(P, "="))
            conditional_expr(P);
        if (!accept(P, ","))
            break;
    }
    if (!accept(P, "}"))
        error_skip(P);
}

/* ---- statements ---- */

static void statement(parser *P);

static int declaration(parser *P)
{
    int is_td = 0;
    if (is_k(P, K_STATIC_ASSERT)) {
        next(P);
        skip_parens(P);
        accept(P, ";");
        return 1;
    }
    if (!decl_specifiers(P, &is_td))
        return 0;
    P->st->decls++;
    if (accept(P, ";"))
        return 1;
    do {
        last_name = 0;
        declarator(P, 0);
        if (is_td && last_name)
            sym_set(P, last_name, 1, 0);
        if (accept(P, "="))
            initializer(P);
    } while (accept(P, ","));
    if (!accept(P, ";"))
        error_skip(P);
    return 1;
}

static void compound_stmt(parser *P)
{
    next(P); /* { */
    while (!is_p(P, "}") && P->tok.kind != T_EOF) {
        if (P->tok.kind == T_KEYWORD || P->tok.kind == T_TYPENAME || looks_like_type(P)) {
            if (declaration(P))
                continue;
        }
        statement(P);
    }
    accept(P, "}");
}

static void paren_expr(parser *P)
{
    if (accept(P, "(")) {
        expression(P);
        accept(P, ")");
    } else {
        P->st->errors++;
    }
}

static void statement(parser *P)
{
    P->st->statements++;
    if (is_p(P, "{")) {
        compound_stmt(P);
        return;
    }
    if (accept(P, ";"))
        return;
    if (P->tok.kind == T_KEYWORD) {
        switch (P->tok.key) {
        case K_IF:
            next(P);
            paren_expr(P);
            statement(P);
            if (is_k(P, K_ELSE)) {
                next(P);
                statement(P);
            }
            return;
        case K_WHILE:
        case K_SWITCH:
            next(P);
            paren_expr(P);
            statement(P);
            return;
        case K_DO:
            next(P);
            statement(P);
            if (is_k(P, K_WHILE))
                next(P);
            paren_expr(P);
            accept(P, ";");
            return;
        case K_FOR:
            next(P);
            if (accept(P, "(")) {
                if (!declaration(P)) {
                    if (!is_p(P, ";"))
                        expression(P);
                    accept(P, ";");
                }
                if (!is_p(P, ";"))
                    expression(P);
                accept(P, ";");
                if (!is_p(P, ")"))
                    expression(P);
                accept(P, ")");
            }
            statement(P);
            return;
        case K_CASE:
            next(P);
            conditional_expr(P);
            if (accept(P, "...")) /* GNU case ranges */
                conditional_expr(P);
            accept(P, ":");
            statement(P);
            return;
        case K_DEFAULT:
            next(P);
            accept(P, ":");
            statement(P);
            return;
        case K_BREAK:
        case K_CONTINUE:
            next(P);
            accept(P, ";");
            return;
        case K_RETURN:
            next(P);
            if (!is_p(P, ";"))
                expression(P);
            accept(P, ";");
            return;
        case K_GOTO:
            next(P);
            next(P);
            accept(P, ";");
            return;
        case K_ASM:
            next(P);
            while (is_k(P, K_VOLATILE) || P->tok.kind == T_IDENT)
                next(P);
            skip_parens(P);
            accept(P, ";");
            return;
        default:
            break;
        }
    }
    if (P->tok.kind == T_IDENT) { /* a label? */
        const char *save = P->p;
        token t = P->tok;
        next(P);
        if (accept(P, ":")) {
            statement(P);
            return;
        }
        P->p = save;
        P->tok = t;
    }
    expression(P);
    if (!accept(P, ";"))
        error_skip(P);
}

/* ---- translation unit ---- */

static void external_declaration(parser *P)
{
    int is_td = 0;
    if (accept(P, ";"))
        return;
    if (is_k(P, K_STATIC_ASSERT)) {
        declaration(P);
        return;
    }
    if (!decl_specifiers(P, &is_td)) {
        /* an unknown macro in front (__BEGIN_DECLS, __THROW...): skip it */
        if (P->tok.kind == T_IDENT) {
            next(P);
            skip_parens(P);
            return;
        }
        error_skip(P);
        return;
    }
    P->st->decls++;
    if (accept(P, ";"))
        return;
    for (;;) {
        last_name = 0;
        declarator(P, 0);
        while (P->tok.kind == T_IDENT) { /* __THROW, __wur, __nonnull ((1))... */
            next(P);
            skip_parens(P);
            attributes(P);
        }
        if (is_td && last_name)
            sym_set(P, last_name, 1, 0);
        if (is_p(P, "{")) { /* a function definition */
            P->st->functions++;
            compound_stmt(P);
            return;
        }
        if (!is_td && decl_specifiers(P, NULL)) { /* K&R parameter declarations */
            while (!is_p(P, "{") && P->tok.kind != T_EOF)
                next(P);
            P->st->functions++;
            compound_stmt(P);
            return;
        }
        if (accept(P, "="))
            initializer(P);
        if (!accept(P, ","))
            break;
    }
    if (!accept(P, ";"))
        error_skip(P);
}

int CPARSE_ENTRY(const char *text, size_t len, struct cparse_stats *st);
int CPARSE_ENTRY(const char *text, size_t len, struct cparse_stats *st)
{
    static parser P; /* one parse at a time per copy; large (the name table) */
    if (!keyword_hash[0])
        CPARSE_INIT();
    memset(&P, 0, sizeof P);
    P.p = text;
    P.end = text + len;
    P.bol = 1;
    P.st = st;
    next(&P);
    while (P.tok.kind != T_EOF) {
        const char *before = P.tok.s;
        external_declaration(&P);
        if (P.tok.s == before && P.tok.kind != T_EOF) /* no progress: skip a token */
            next(&P);
    }
    return (int)(st->errors != 0);
}
