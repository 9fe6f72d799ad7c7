/* util/json_scan.h: the allocation-free scan against cJSON itself (the independent reference):
 * on every shipped scene and robot model, on hand-picked edge cases of cJSON's grammar and on
 * 24 000 random one-byte mutations of scene texts (of the files up to 16 KB), the scan must accept exactly what cJSON
 * accepts, stop at the offset cJSON reports, and count cJSON's nodes; the predicted tree size
 * against the heap cJSON really takes (mallinfo2); and the budgeted parse's three outcomes
 * (malformed, above the budget before parsing, cJSON's allocation failing on a valid text). */
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tcheck.h"
#include "util/json_scan.h"
#include "util/json_util.h"
#include "util/membudget.h"

static size_t count_nodes(const cJSON *v)
{
    size_t n = 0;
    for (; v; v = v->next) n += 1 + count_nodes(v->child);
    return n;
}

static int mismatches;

/* The scan and cJSON on one text: 1 when they agree. */
static int agree(const char *text, const char *label)
{
    ncp_json_scan s;
    ncp_json_scan_text(text, &s);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    int ok = (root != NULL) == (s.ok != 0);
    if (ok && root) ok = count_nodes(root) == s.values;
    if (ok && !root) ok = end && (size_t)(end - text) == s.error_at;
    if (!ok && mismatches++ < 5)
        fprintf(stderr, "%s: scan ok %d at %zu (%zu values), cJSON %s at %ld (%zu values)\n", label,
                s.ok, s.error_at, s.values, root ? "ok" : "failed", end ? (long)(end - text) : -1L,
                root ? count_nodes(root) : 0);
    cJSON_Delete(root);
    return ok;
}

static char *read_all(const char *path)
{
    char *text = NULL;
    ncp_error err = {0};
    return ncp_json_read_text(path, "test file", (size_t)64 << 20, &text, &err) ? NULL : text;
}

/* Every *.json of a folder: *texts gets them (caller frees), returns how many. */
static int read_dir(const char *dir, char **texts, int cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d)) && n < cap;) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if ((texts[n] = read_all(path))) n++;
    }
    closedir(d);
    return n;
}

static void test_edge_cases(void)
{
    static const char *const cases[] = {
        "", " ", "{}", "[]", "{ }", "[ ]", "{", "[", "}", "]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}",
        "[1,]", "[1 2]", "{\"a\":1 \"b\":2}", "{,}", "{a:1}", "[1,,2]", "{\"a\"::1}", "null",
        "nul", "true", "tru", "false", "fals", "nullx", "[nulll]", "1", "-", "-1", "+1", "01",
        "1.2.3", "[1.2.3]", "1e", "[1e5,-0.0,2E-3,1e+2]", "[.5]", "[-.5]", "[1-2]", "[--1]",
        "[0x10]", "[1e999]", "[123456789012345678901234567890123456789012345678901234567890123456789]",
        "\"abc", "\"a\\\"", "\"\\q\"", "\"\\u00e9\"", "\"\\uZZZZ\"", "\"\\u12\"", "\"\\ud800\"",
        "\"\\ud800\\udc00\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\\udc00\"",
        "\"tab\there\"", "\"\\\\\"", "\"\\/\\b\\f\\n\\r\\t\"", "\"x\\", "{\"a\":\"b\\", "\xEF\xBB\xBF{}",
        "\xEF\xBB\xBF", "\xEF\xBB\xBF[1]", "{} x", "{} ", "[1] [2]", "\x01{}\x02", "{\"\":1}",
        "{\"a\":[{\"b\":[]},{}],\"c\":{\"d\":null}}", "[\"\\u0000\"]", "[true,false,null]",
        "{\"a\"\n:\n1\n,\n\"b\"\n:\n[\n]\n}", "[1,\n", "{\"name\": \"t\"\n  \"timestep\": 0.01\n}"};
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) bad += !agree(cases[i], cases[i]);
    CHECK(bad == 0);
    /* cJSON's nesting limit: 1000 containers parse, 1001 do not */
    for (int depth = 999; depth <= 1001; depth++) {
        char *t = malloc(2 * (size_t)depth + 1);
        if (!t) continue;
        memset(t, '[', (size_t)depth);
        memset(t + depth, ']', (size_t)depth);
        t[2 * depth] = '\0';
        CHECK(agree(t, "deep"));
        ncp_json_scan s;
        ncp_json_scan_text(t, &s);
        CHECK(s.ok == (depth <= CJSON_NESTING_LIMIT));
        free(t);
    }
    printf("edge cases: %zu texts and the nesting limit agree with cJSON\n",
           sizeof cases / sizeof cases[0]);
}

/* The shipped files, then one-byte mutations of them (deleted, inserted, replaced; a fixed
 * LCG, so every run tests the same texts). */
static void test_corpus(void)
{
    char *texts[256];
    int n = read_dir("scenes", texts, 128);
    n += read_dir("scenes/robots", texts + n, 256 - n);
    CHECK(n >= 10);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        ncp_json_scan s;
        ncp_json_scan_text(texts[i], &s);
        CHECK(s.ok); /* every shipped file is valid */
        bad += !agree(texts[i], "shipped file");
    }
    static const char alphabet[] = "{}[]:,\"\\ u0123456789.eE+-tfnarl\n\x01";
    unsigned long long r = 42;
    int tried = 0, rejected = 0;
    for (int k = 0; k < 24000 && n > 0; k++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        const char *src = texts[(r >> 33) % (unsigned)n];
        size_t len = strlen(src), room = len < 4000 ? len : 4000; /* mutate the first 4000 bytes */
        if (len > 16384) continue; /* of the smaller files: the test stays fast */
        char *t = malloc(len + 2);
        if (!t || room == 0) {
            free(t);
            continue;
        }
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t at = (size_t)(r >> 20) % room;
        char c = alphabet[(r >> 8) % (sizeof alphabet - 1)];
        switch (k % 3) {
        case 0: memcpy(t, src, at); memcpy(t + at, src + at + 1, len - at); break;
        case 1: memcpy(t, src, at); t[at] = c; memcpy(t + at + 1, src + at, len - at + 1); break;
        default: memcpy(t, src, len + 1); t[at] = c; break;
        }
        ncp_json_scan s;
        ncp_json_scan_text(t, &s);
        rejected += !s.ok;
        bad += !agree(t, "mutated text");
        tried++;
        free(t);
    }
    CHECK(bad == 0);
    CHECK(rejected > tried / 4); /* the mutations do break texts */
    printf("corpus: %d shipped files and %d mutations (%d malformed) agree with cJSON, %d mismatches\n",
           n, tried, rejected, bad);
    for (int i = 0; i < n; i++) free(texts[i]);
}

/* A generated scene-like text of n bodies. */
static char *bodies_text(int n)
{
    size_t cap = 200 + (size_t)n * 160, used = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    used += (size_t)snprintf(t, cap, "{\"name\": \"many\", \"bodies\": [");
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(t + used, cap - used, "%s{\"name\": \"b%d\", \"mass\": 1, "
                                 "\"position\": [%g, 0.5, 0.1], \"shapes\": [{\"type\": \"box\"}]}",
                                 i ? ", " : "", i, 0.25 * i);
    snprintf(t + used, cap - used, "]}");
    return t;
}

/* The predicted tree against the heap cJSON takes (glibc's in-use bytes; not under ASan, whose
 * allocator mallinfo2 does not see). */
static void test_tree_bytes(void)
{
#ifndef NCP_MEM_NO_ADDRESS_LIMIT
    char *t = bodies_text(20000);
    CHECK(t != NULL);
    if (!t) return;
    ncp_json_scan s;
    ncp_json_scan_text(t, &s);
    CHECK(s.ok && s.values == 2 + 20000 * 10u + 1);
    size_t before = mallinfo2().uordblks;
    cJSON *root = cJSON_Parse(t);
    size_t after = mallinfo2().uordblks;
    CHECK(root != NULL);
    double real = (double)after - (double)before;
    CHECK(fabs(s.tree_bytes - real) <= 0.02 * real);
    printf("tree: %zu values, predicted %.0f bytes, cJSON took %.0f (%+.2f%%)\n", s.values,
           s.tree_bytes, real, 100.0 * (s.tree_bytes - real) / real);
    cJSON_Delete(root);
    free(t);
#endif
}

/* cJSON's allocator, failing from the k-th call on (cJSON_InitHooks is cJSON's own global; this
 * test restores it). */
static int fail_after = -1;
static void *failing_malloc(size_t n)
{
    if (fail_after == 0) return NULL;
    if (fail_after > 0) fail_after--;
    return malloc(n);
}

static void test_parse_doc(void)
{
    char *t = bodies_text(2000);
    CHECK(t != NULL);
    if (!t) return;
    ncp_error err = {0};
    cJSON *root = NULL;
    /* fits: parsed */
    CHECK_OK(ncp_json_parse_doc(t, "many.json", 64.0 * 1048576.0, 0.0, &root, &err), &err);
    CHECK(root && cJSON_GetArraySize(cJSON_GetObjectItem(root, "bodies")) == 2000);
    cJSON_Delete(root);
    /* above the budget, before parsing: the file, what, how much, the budget, the option */
    ncp_error_clear(&err);
    CHECK(ncp_json_parse_doc(t, "many.json", 1048576.0, 0.0, &root, &err) == NCP_ERR_INPUT);
    CHECK(root == NULL);
    CHECK(strstr(err.msg, "many.json: parsing its JSON (") != NULL);
    CHECK(strstr(err.msg, "20003 values) needs ") != NULL);
    CHECK(strstr(err.msg, "above the memory budget of 1 MiB (raise it with --max-memory") != NULL);
    printf("above the budget: %s\n", err.msg);
    /* malformed under the same budget: still malformed, with its line and column */
    char *m = strdup(t);
    CHECK(m != NULL);
    if (m) {
        char *at = strstr(m, "\"b7\"");
        if (at) at[-11] = ';'; /* "}, {\"name\": \"b7\"" becomes "}; {..." */
        ncp_error_clear(&err);
        CHECK(ncp_json_parse_doc(m, "bad.json", 1048576.0, 0.0, &root, &err) == NCP_ERR_INPUT);
        CHECK(strstr(err.msg, "bad.json: line 1, column ") != NULL);
        CHECK(strstr(err.msg, "malformed JSON near \"; {\"name\"") != NULL);
        CHECK(strstr(err.msg, "budget") == NULL);
        free(m);
    }
    /* cJSON's allocation failing on a valid text that fits the prediction: memory, never
     * "malformed"; without an address-space limit, the machine's own out of memory */
    cJSON_Hooks hooks = {failing_malloc, free};
    cJSON_InitHooks(&hooks);
    const int limited = ncp_mem_address_limit() > 0.0;
    fail_after = 5000;
    ncp_error_clear(&err);
    int rc = ncp_json_parse_doc(t, "many.json", 64.0 * 1048576.0, 0.0, &root, &err);
    fail_after = -1;
    cJSON_InitHooks(NULL);
    CHECK(root == NULL);
    CHECK(strstr(err.msg, "malformed") == NULL);
    CHECK(strstr(err.msg, "many.json: parsing its JSON (") != NULL);
    CHECK(strstr(err.msg, "cJSON's allocation failed") != NULL);
    if (limited) CHECK(rc == NCP_ERR_INPUT || rc == NCP_ERR_NOMEM);
    else CHECK(rc == NCP_ERR_NOMEM && strncmp(err.msg, "out of memory: ", 15) == 0);
    printf("allocation failed (%s limit): %s\n", limited ? "a" : "no", err.msg);
    free(t);
}

/* ncp_mem_refuse under --max-memory's cap (in a child: the limit is never raised again), and
 * under a smaller limit of the user's own. Not in sanitizer builds (no cap there). */
static void test_refuse(void)
{
    ncp_error err = {0};
    if (ncp_mem_address_limit() <= 0.0) {
        CHECK(ncp_mem_refuse(1e9, "x.json: building it", "detail", &err) == NCP_ERR_NOMEM);
        CHECK(strcmp(err.msg, "out of memory: x.json: building it (detail)") == 0);
    }
#ifndef NCP_MEM_NO_ADDRESS_LIMIT
    pid_t pid = fork();
    if (pid == 0) {
        const double budget = 256.0 * 1048576.0;
        ncp_mem_cap_process(budget);
        int ok = ncp_mem_address_limit() > budget;
        ok = ok && ncp_mem_refuse(budget, "x.json: building it", "out of memory allocating 9 bytes", &err) == NCP_ERR_INPUT;
        ok = ok && strcmp(err.msg, "x.json: building it needs more than the memory budget of 256 MiB "
                                   "allows (out of memory allocating 9 bytes; raise it with "
                                   "--max-memory, e.g. --max-memory 80%)") == 0;
        /* a limit below the budget is not --max-memory's: named as the address-space limit */
        ok = ok && ncp_mem_refuse(1e15, "x.json: building it", "d", &err) == NCP_ERR_NOMEM;
        ok = ok && strstr(err.msg, "address-space limit of") && strstr(err.msg, "ulimit -v");
        if (!ok) fprintf(stderr, "child: %s\n", err.msg);
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
#endif
}

int main(void)
{
    test_edge_cases();
    test_corpus();
    test_tree_bytes();
    test_parse_doc();
    test_refuse();
    return tcheck_exit("json_scan");
}
