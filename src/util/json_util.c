/* Strict JSON validation helpers (see json_util.h). */
#include "util/json_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int ncp_json_fail(const ncp_json_ctx *c, const char *path, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s: %s", c->where, path, msg);
}

void ncp_json_key(char *out, const char *path, const char *key)
{
    int n = path[0] ? snprintf(out, NCP_JSON_PATH_MAX, "%s.%s", path, key)
                    : snprintf(out, NCP_JSON_PATH_MAX, "%s", key);
    if (n < 0 || n >= NCP_JSON_PATH_MAX) memcpy(out + NCP_JSON_PATH_MAX - 4, "...", 4);
}

void ncp_json_index(char *out, const char *path, int i)
{
    int n = snprintf(out, NCP_JSON_PATH_MAX, "%s[%d]", path, i);
    if (n < 0 || n >= NCP_JSON_PATH_MAX) memcpy(out + NCP_JSON_PATH_MAX - 4, "...", 4);
}

const char *ncp_json_describe(const cJSON *v, char *buf, size_t n)
{
    if (!v) snprintf(buf, n, "nothing");
    else if (cJSON_IsNumber(v)) snprintf(buf, n, "%.17g", v->valuedouble);
    else if (cJSON_IsString(v)) snprintf(buf, n, "the string \"%.40s\"", v->valuestring);
    else if (cJSON_IsBool(v)) snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNull(v)) snprintf(buf, n, "null");
    else if (cJSON_IsArray(v)) snprintf(buf, n, "an array of %d elements", cJSON_GetArraySize(v));
    else if (cJSON_IsObject(v)) snprintf(buf, n, "an object");
    else snprintf(buf, n, "an invalid value");
    return buf;
}

int ncp_json_expect(const ncp_json_ctx *c, const char *path, const cJSON *v, const char *expected)
{
    char got[96];
    return ncp_json_fail(c, path, "must be %s, got %s", expected,
                         ncp_json_describe(v, got, sizeof got));
}

void ncp_json_join_names(char *list, size_t cap, const char *const *names)
{
    list[0] = '\0';
    for (int i = 0; names[i]; i++) {
        size_t l = strlen(list);
        snprintf(list + l, cap - l, "%s%s", i ? ", " : "", names[i]);
    }
}

int ncp_json_check_keys(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                        const char *const *allowed)
{
    if (!cJSON_IsObject(obj)) return ncp_json_expect(c, path[0] ? path : "(top level)", obj, "an object");
    for (const cJSON *it = obj->child; it; it = it->next) {
        char p[NCP_JSON_PATH_MAX];
        ncp_json_key(p, path, it->string);
        int known = 0;
        for (int i = 0; allowed[i]; i++) known |= strcmp(allowed[i], it->string) == 0;
        if (!known) {
            char list[512];
            ncp_json_join_names(list, sizeof list, allowed);
            return ncp_json_fail(c, p, "unknown key (expected one of: %s)", list);
        }
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (strcmp(prev->string, it->string) == 0)
                return ncp_json_fail(c, p, "duplicate key (each key may appear once)");
    }
    return NCP_OK;
}

/* Member key of obj, its path in p. Absent: NULL, with *rc = NCP_OK (the caller stores its
 * default) or, if req, the error "missing (expected <what>)". */
static const cJSON *member(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                           const char *key, int req, const char *what, char *p, int *rc)
{
    ncp_json_key(p, path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *rc = !v && req ? ncp_json_fail(c, p, "missing (expected %s)", what) : NCP_OK;
    return v;
}

int ncp_json_get_quantity(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                          const char *key, int req, int range, const char *unit, double def,
                          double *out)
{
    static const char *const base[] = {"a finite number", "a positive number",
                                       "a non-negative number", "a number in [0, 1]",
                                       "a number in [0, 1)"};
    char p[NCP_JSON_PATH_MAX], what[96];
    snprintf(what, sizeof what, "%s%s%s", base[range], unit ? " in " : "", unit ? unit : "");
    int rc;
    const cJSON *v = member(c, obj, path, key, req, what, p, &rc);
    if (!v) {
        if (!rc) *out = def;
        return rc;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return ncp_json_expect(c, p, v, what);
    double x = v->valuedouble;
    if ((range == NCP_JSON_POSITIVE && !(x > 0.0)) || (range == NCP_JSON_NONNEG && !(x >= 0.0)) ||
        (range == NCP_JSON_UNIT && !(x >= 0.0 && x <= 1.0)) ||
        (range == NCP_JSON_UNIT_OPEN && !(x >= 0.0 && x < 1.0)))
        return ncp_json_expect(c, p, v, what);
    *out = x;
    return NCP_OK;
}

int ncp_json_get_number(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                        const char *key, int req, int range, double def, double *out)
{
    return ncp_json_get_quantity(c, obj, path, key, req, range, NULL, def, out);
}

/* An integer in [lo, hi], `what` it must be for messages. */
static int get_int(const ncp_json_ctx *c, const cJSON *obj, const char *path, const char *key,
                   int req, int lo, int hi, const char *what, int def, int *out)
{
    char p[NCP_JSON_PATH_MAX];
    int rc;
    const cJSON *v = member(c, obj, path, key, req, what, p, &rc);
    if (!v) {
        if (!rc) *out = def;
        return rc;
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!isfinite(x) || x != floor(x) || x < lo || x > hi) return ncp_json_expect(c, p, v, what);
    *out = (int)x;
    return NCP_OK;
}

int ncp_json_get_int(const ncp_json_ctx *c, const cJSON *obj, const char *path, const char *key,
                     int req, int lo, int def, int *out)
{
    char what[64];
    snprintf(what, sizeof what, "an integer >= %d", lo);
    return get_int(c, obj, path, key, req, lo, 1000000000, what, def, out);
}

int ncp_json_get_int_in(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                        const char *key, int req, int lo, int hi, int def, int *out)
{
    char what[64];
    snprintf(what, sizeof what, "an integer in [%d, %d]", lo, hi);
    return get_int(c, obj, path, key, req, lo, hi, what, def, out);
}

int ncp_json_get_bool(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                      const char *key, int def, int *out)
{
    char p[NCP_JSON_PATH_MAX];
    int rc;
    const cJSON *v = member(c, obj, path, key, 0, "", p, &rc);
    if (!v) {
        *out = def;
        return NCP_OK;
    }
    if (!cJSON_IsBool(v)) return ncp_json_expect(c, p, v, "true or false");
    *out = cJSON_IsTrue(v);
    return NCP_OK;
}

int ncp_json_get_string(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                        const char *key, int req, const char *def, char *out, size_t cap)
{
    char p[NCP_JSON_PATH_MAX], what[64];
    snprintf(what, sizeof what, "a non-empty string of at most %zu characters", cap - 1);
    int rc;
    const cJSON *v = member(c, obj, path, key, req, what, p, &rc);
    if (!v) {
        if (!rc) snprintf(out, cap, "%s", def);
        return rc;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= cap)
        return ncp_json_expect(c, p, v, what);
    snprintf(out, cap, "%s", v->valuestring);
    return NCP_OK;
}

int ncp_json_numbers(const cJSON *v, int n, double *out)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return -1;
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) return i;
        out[i] = it->valuedouble;
    }
    return n;
}

int ncp_json_get_vec(const ncp_json_ctx *c, const cJSON *obj, const char *path, const char *key,
                     int req, int n, const double *def, double *out)
{
    char p[NCP_JSON_PATH_MAX], what[64];
    snprintf(what, sizeof what, "an array of %d finite numbers", n);
    int rc;
    const cJSON *v = member(c, obj, path, key, req, what, p, &rc);
    if (!v) {
        if (!rc && def) memcpy(out, def, (size_t)n * sizeof(double));
        return rc;
    }
    int got = ncp_json_numbers(v, n, out);
    if (got < 0) return ncp_json_expect(c, p, v, what);
    if (got < n) {
        char q[NCP_JSON_PATH_MAX];
        ncp_json_index(q, p, got);
        return ncp_json_expect(c, q, cJSON_GetArrayItem(v, got), "a finite number");
    }
    return NCP_OK;
}

int ncp_json_get_enum(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                      const char *key, int req, const char *const *names, int def, int *out)
{
    char p[NCP_JSON_PATH_MAX], list[256] = "one of: ";
    size_t l0 = strlen(list);
    ncp_json_join_names(list + l0, sizeof list - l0, names);
    int rc;
    const cJSON *v = member(c, obj, path, key, req, list, p, &rc);
    if (!v) {
        if (!rc) *out = def;
        return rc;
    }
    if (cJSON_IsString(v))
        for (int i = 0; names[i]; i++)
            if (strcmp(names[i], v->valuestring) == 0) {
                *out = i;
                return NCP_OK;
            }
    char got[96];
    return ncp_json_fail(c, p, "must be %s; got %s", list, ncp_json_describe(v, got, sizeof got));
}

int ncp_json_check_name(const ncp_json_ctx *c, const char *path, const char *name,
                        const char *what)
{
    for (const char *s = name; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return ncp_json_fail(c, path, "%s%smust use only letters, digits, '-', '_' and '.', got \"%s\"",
                                 what ? what : "", what ? " " : "", name);
    return NCP_OK;
}

int ncp_json_read_text(const char *path, const char *what, size_t limit, char **out,
                       ncp_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return ncp_error_set(err, NCP_ERR_INPUT, "%s: cannot open %s: %s", path, what, strerror(errno));
    size_t cap = 1 << 14, n = 0;
    char *buf = ncp_malloc(err, cap, 1);
    int rc = buf ? NCP_OK : NCP_ERR_NOMEM;
    while (!rc) {
        if (n + 1 >= cap) {
            if (cap >= limit) {
                rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: %s larger than %zu MB (expected a JSON "
                                   "text file)", path, what, limit >> 20);
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) rc = ncp_error_set(err, NCP_ERR_IO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (!rc) {
        buf[n] = '\0';
        if (strlen(buf) != n)
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: contains a NUL byte at offset %zu (expected a "
                               "JSON text file)", path, strlen(buf));
    }
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    return NCP_OK;
}
