/* run_ranks.c — one rank's setup of a --ranks run (see run_ranks.h). */
#define _GNU_SOURCE
#include "run_ranks.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "compat.h"

/* The kernel's range of ephemeral ports (the source ports of connect()), or the usual one. */
static void ephemeral_range(int *lo, int *hi)
{
    *lo = 32768, *hi = 60999;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
    if (f) {
        int a, b;
        if (fscanf(f, "%d %d", &a, &b) == 2 && a > 0 && a <= b && b < 65536)
            *lo = a, *hi = b;
        fclose(f);
    }
}

/* Not one of the ephemeral ports: while rank 0 still loads, the others' connect() retries to a port
 * nobody listens on can be given that very port as their source and connect to themselves (TCP's
 * self-connect), and then wait on their own bytes forever: a hang seen with 3 ranks. */
int run_ranks_port(strbuf *err)
{
    int lo, hi, tries = 0;
    ephemeral_range(&lo, &hi);
    int base = lo > 11024 ? lo - 10000 : hi + 1, span = lo > 11024 ? 10000 : 65535 - hi;
    if (span <= 0) {
        strbuf_addf(err, "no port outside the ephemeral range %d-%d for the ranks' store: set MASTER_PORT", lo, hi);
        return -1;
    }
    unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    while (tries++ < 200) {
        int port = base + (int)(rand_r(&seed) % (unsigned)span);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                 .sin_addr.s_addr = htonl(INADDR_ANY)};
        if (fd < 0) {
            strbuf_addf(err, "no socket for the ranks' store: %s", strerror(errno));
            return -1;
        }
        int ok = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        close(fd);
        if (ok)
            return port;
    }
    strbuf_addf(err, "no free port in %d-%d for the ranks' store: set MASTER_PORT", base, base + span - 1);
    return -1;
}

char *run_ranks_record(const char *out, int k)
{
    strbuf b = STRBUF_INIT;
    size_t n = strlen(out);
    if (n > 5 && !strcmp(out + n - 5, ".yaml"))
        n -= 5;
    strbuf_addf(&b, "%.*s.rank%d.yaml", (int)n, out, k);
    return strbuf_detach(&b, NULL);
}

char *run_ranks_inputs(const char *spec, int k, int n, strbuf *err)
{
    if (!spec)
        return NULL;
    int count = 1;
    for (const char *p = spec; *p; p++)
        count += *p == ',';
    if (count == 1)
        return xstrdup(spec);
    if (count != n) {
        strbuf_addf(err, "--inputs gives %d specs for %d ranks: give one spec for all, or one per rank "
                    "separated by commas", count, n);
        return NULL;
    }
    const char *p = spec;
    for (int i = 0; i < k; i++)
        p = strchr(p, ',') + 1;
    return xstrndup(p, strcspn(p, ","));
}

void run_ranks_one(const run_options *o, const run_rank_place *p, run_rank *r, run_options *one)
{
    memset(r, 0, sizeof *r);
    int i = 0;
    snprintf(r->text[i++], sizeof r->text[0], "RANK=%d", p->rank);
    snprintf(r->text[i++], sizeof r->text[0], "LOCAL_RANK=%d", p->local_rank);
    snprintf(r->text[i++], sizeof r->text[0], "WORLD_SIZE=%d", o->ranks);
    snprintf(r->text[i++], sizeof r->text[0], "MASTER_PORT=%d", p->port);
    snprintf(r->text[i++], sizeof r->text[0], "MASTER_ADDR=%s", p->addr ? p->addr : "127.0.0.1");
    snprintf(r->text[i++], sizeof r->text[0], "AOTIDBG_PG=%s", RUN_RANKS_GROUP);
    snprintf(r->text[i++], sizeof r->text[0], "AOTIDBG_PG_TIMEOUT_MS=%.0f",
             p->pg_timeout_s > 0 ? p->pg_timeout_s * 1000 : 24.0 * 3600 * 1000);
    for (int j = 0; j < i; j++)
        r->env[j] = r->text[j];
    r->env[i] = NULL;
    *one = *o;
    one->rank = p->rank;
    one->record = p->record;
    one->inputs = p->inputs;
    one->env = r->env;
    if (one->device && !strncmp(one->device, "cuda", 4)) {   /* one GPU per rank of a host */
        snprintf(r->device, sizeof r->device, "cuda:%d", p->local_rank);
        one->device = r->device;
    }
}


int run_ranks_joined(const session *s)
{
    for (size_t i = 0; s && i < s->nevents; i++)
        if (s->events[i]->kind == EV_LOG && s->events[i]->u.log.text &&
            strstr(s->events[i]->u.log.text, "joined process group"))
            return 1;
    return 0;
}
