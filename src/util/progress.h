/* A progress bar on stderr when it is a terminal and the run lasts more than a second; silent
 * otherwise (logs and CI stay clean). */
#ifndef NCP_PROGRESS_H
#define NCP_PROGRESS_H

typedef struct ncp_progress {
    int enabled;     /* stderr is a terminal and not disabled */
    int total;
    int done;
    double start_ms;
    double last_ms;
    int drawn;       /* something is on the line */
    char label[64];
} ncp_progress;

void ncp_progress_begin(ncp_progress *pg, const char *label, int total, int allow);
void ncp_progress_update(ncp_progress *pg, int done, const char *what);
void ncp_progress_end(ncp_progress *pg);

#endif
