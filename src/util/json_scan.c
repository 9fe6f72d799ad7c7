/* The allocation-free JSON scan and the budgeted parse (json_scan.h). The scan follows cJSON
 * 1.7's parser (cJSON.c: parse_value, parse_string, parse_number, parse_array, parse_object,
 * buffer_skip_whitespace) step by step, so that it accepts exactly the texts cJSON accepts and
 * stops where cJSON stops; tests/test_json_scan.c holds the two to that on mutated texts. */
#include "util/json_scan.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/membudget.h"

/* glibc's heap chunk for a request of n bytes: n + 8 rounded up to 16, at least 32. */
static double chunk(size_t n)
{
    size_t c = (n + 8 + 15) & ~(size_t)15;
    return (double)(c < 32 ? 32 : c);
}

/* cJSON's whitespace: every byte <= 32, the terminating NUL included; never past the NUL. */
static size_t skip_ws(const unsigned char *t, size_t len, size_t p)
{
    if (p >= len) return p;
    while (p < len && t[p] <= 32) p++;
    return p == len ? p - 1 : p;
}

static unsigned hex4(const unsigned char *s)
{
    unsigned h = 0;
    for (int i = 0; i < 4; i++) {
        unsigned d;
        if (s[i] >= '0' && s[i] <= '9') d = s[i] - '0';
        else if (s[i] >= 'A' && s[i] <= 'F') d = 10u + s[i] - 'A';
        else if (s[i] >= 'a' && s[i] <= 'f') d = 10u + s[i] - 'a';
        else return 0; /* cJSON takes an invalid \u sequence as U+0000 */
        h = (h << 4) | d;
    }
    return h;
}

/* The string at t[p] == '"' (cJSON parse_string): 1 and *next past its closing quote, *bytes
 * its copy's size; 0 and *next at the error. */
static int scan_string(const unsigned char *t, size_t len, size_t p, size_t *next, size_t *bytes)
{
    size_t e = p + 1, skipped = 0;
    while (e < len && t[e] != '"') {
        if (t[e] == '\\') {
            if (e + 1 >= len) {
                *next = p + 1;
                return 0;
            }
            skipped++;
            e++;
        }
        e++;
    }
    if (e >= len || t[e] != '"') {
        *next = p + 1; /* unterminated */
        return 0;
    }
    for (size_t i = p + 1; i < e;) {
        if (t[i] != '\\') {
            i++;
            continue;
        }
        size_t seq = 2;
        switch (t[i + 1]) {
        case 'b': case 'f': case 'n': case 'r': case 't': case '"': case '\\': case '/': break;
        case 'u': {
            unsigned first = e - i >= 6 ? hex4(t + i + 2) : 0;
            int bad = e - i < 6 || (first >= 0xDC00 && first <= 0xDFFF);
            if (!bad && first >= 0xD800 && first <= 0xDBFF) { /* a surrogate pair */
                const unsigned char *s = t + i + 6;
                unsigned second = (size_t)(t + e - s) >= 6 && s[0] == '\\' && s[1] == 'u' ? hex4(s + 2) : 0;
                bad = second < 0xDC00 || second > 0xDFFF;
                seq = 12;
            } else {
                seq = 6;
            }
            if (bad) {
                *next = i;
                return 0;
            }
            break;
        }
        default:
            *next = i;
            return 0;
        }
        i += seq;
    }
    *bytes = (e - p) - skipped + 1;
    *next = e + 1;
    return 1;
}

/* The number at t[p] (cJSON parse_number: the run of [0-9+-eE.], as far as strtod reads it;
 * Debian's cJSON 1.7.15 takes a run of any length). */
static int scan_number(const unsigned char *t, size_t len, size_t p, size_t *next)
{
    char buf[64];
    const char point = localeconv()->decimal_point[0];
    size_t k = 0;
    for (; p + k < len; k++) {
        unsigned char c = t[p + k];
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'e' || c == 'E' || c == '.')) break;
        if (k < sizeof buf - 1) buf[k] = c == '.' ? point : (char)c;
    }
    /* a long run holds no 'x', 'i' or 'n': strtod reads the text itself no further than it */
    const char *s = k < sizeof buf ? buf : (const char *)t + p;
    if (k < sizeof buf) buf[k] = '\0';
    char *end = NULL;
    (void)strtod(s, &end);
    if (end == s) {
        *next = p;
        return 0;
    }
    *next = p + (size_t)(end - s);
    return 1;
}

static int literal(const unsigned char *t, size_t len, size_t p, const char *word)
{
    size_t n = strlen(word);
    return p + n <= len && strncmp((const char *)t + p, word, n) == 0;
}

void ncp_json_scan_text(const char *text, ncp_json_scan *out)
{
    const unsigned char *t = (const unsigned char *)text;
    const size_t len = strlen(text) + 1; /* cJSON's buffer: the text and its NUL */
    const double node = chunk(sizeof(cJSON));
    char open[CJSON_NESTING_LIMIT]; /* the open containers: '[' or '{' */
    size_t depth = 0, p = 0, bytes = 0;
    memset(out, 0, sizeof *out);
    if (len > 4 && memcmp(t, "\xEF\xBB\xBF", 3) == 0) p = 3; /* a UTF-8 byte order mark */
    p = skip_ws(t, len, p);
    enum { VALUE, KEY, AFTER } state = VALUE;
    for (;;) {
        if (state == KEY) {
            if (t[p] != '"') {
                p++; /* cJSON stops one past a key that is not a string */
                break;
            }
            if (!scan_string(t, len, p, &p, &bytes)) break;
            out->tree_bytes += chunk(bytes);
            p = skip_ws(t, len, p);
            if (t[p] != ':') break;
            p = skip_ws(t, len, p + 1);
            state = VALUE;
        } else if (state == VALUE) {
            out->values++;
            out->tree_bytes += node;
            const unsigned char c = t[p];
            if (literal(t, len, p, "null") || literal(t, len, p, "true")) {
                p += 4;
            } else if (literal(t, len, p, "false")) {
                p += 5;
            } else if (c == '"') {
                if (!scan_string(t, len, p, &p, &bytes)) break;
                out->tree_bytes += chunk(bytes);
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                if (!scan_number(t, len, p, &p)) break;
            } else if (c == '[' || c == '{') {
                if (depth >= CJSON_NESTING_LIMIT) break; /* cJSON's nesting limit */
                open[depth++] = (char)c;
                p = skip_ws(t, len, p + 1);
                if (t[p] == (c == '[' ? ']' : '}')) {
                    depth--;
                    p++;
                    state = AFTER;
                } else {
                    state = c == '[' ? VALUE : KEY;
                }
                continue;
            } else {
                break;
            }
            state = AFTER;
        } else { /* AFTER a value */
            p = skip_ws(t, len, p);
            if (depth == 0) {
                out->ok = p < len && t[p] == '\0'; /* nothing after the document */
                break;
            }
            if (t[p] == ',') {
                p = skip_ws(t, len, p + 1);
                state = open[depth - 1] == '{' ? KEY : VALUE;
            } else if (t[p] == (open[depth - 1] == '[' ? ']' : '}')) {
                depth--;
                p++;
            } else {
                break;
            }
        }
    }
    out->error_at = out->ok ? 0 : (p < len ? p : len - 1);
}

/* Line and column (1-based) of byte offset `off` in text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

int ncp_json_parse_doc(const char *text, const char *where, double budget, double held,
                       cJSON **out, ncp_error *err)
{
    *out = NULL;
    ncp_json_scan s;
    ncp_json_scan_text(text, &s);
    if (!s.ok) {
        int line, col;
        line_col(text, s.error_at, &line, &col);
        char near[32];
        size_t k = 0;
        for (const char *c = text + s.error_at; *c && *c != '\n' && k < 24; c++)
            near[k++] = (*c >= 32 && *c < 127) ? *c : '?';
        near[k] = '\0';
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: line %d, column %d: malformed JSON near \"%s\" "
                             "(expected a valid JSON document; check commas, quotes and brackets)",
                             where, line, col, near);
    }
    char what[1200], tb[32];
    snprintf(what, sizeof what, "%s: parsing its JSON (%s of text, %zu values)", where,
             ncp_mem_format((double)strlen(text), tb, sizeof tb), s.values);
    const double need = held + s.tree_bytes;
    int rc = ncp_mem_check(budget, need, what, err);
    if (rc) return rc;
    const char *end = NULL;
    *out = cJSON_ParseWithOpts(text, &end, 1);
    if (*out) return NCP_OK;
    /* the scan accepted the text: only an allocation can have failed */
    char detail[96], nb[32];
    snprintf(detail, sizeof detail, "predicted %s; cJSON's allocation failed",
             ncp_mem_format(need, nb, sizeof nb));
    return ncp_mem_refuse(budget, what, detail, err);
}
