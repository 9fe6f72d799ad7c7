/* "Did you mean ...?": the closest of a list of names to a misspelled one, by edit distance. */
#ifndef NCP_STRDIST_H
#define NCP_STRDIST_H

#include <stddef.h>

/* Levenshtein distance (insertions, deletions, substitutions, and a swap of two neighbours
 * counts as one edit: the optimal string alignment distance), case-sensitive. */
int ncp_edit_distance(const char *a, const char *b);

/* The name of names[0..n) closest to word, when it is close enough to be the one meant (at most
 * 1 edit for words of up to 4 characters, 2 up to 8, else 3) and not word itself; else NULL.
 * Ties go to the first. */
const char *ncp_closest_name(const char *word, const char *const *names, int n);

#endif
