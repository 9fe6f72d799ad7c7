/* Edit distance and the closest name (strdist.h). */
#include <string.h>

#include "util/strdist.h"

int ncp_edit_distance(const char *a, const char *b)
{
    /* names are short: longer words are compared on their first 63 characters */
    enum { L = 64 };
    size_t n = strlen(a), m = strlen(b);
    if (n >= L) n = L - 1;
    if (m >= L) m = L - 1;
    int d[L][L];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

const char *ncp_closest_name(const char *word, const char *const *names, int n)
{
    size_t len = strlen(word);
    for (const char *w = word; *w == '-' && len > 0; w++) len--; /* an option's dashes */
    int limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    int bestd = limit + 1;
    for (int i = 0; i < n; i++) {
        if (!names[i] || !strcmp(names[i], word)) continue;
        int dd = ncp_edit_distance(word, names[i]);
        if (dd < bestd) {
            bestd = dd;
            best = names[i];
        }
    }
    return best;
}
