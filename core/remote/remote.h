/* remote.h — `--remote [USER@]HOST[:PORT]`: the runner on the GPU box, the
 * screen here. One ssh connection per front-end session, to
 * `aotidbg-runner --serve` there (the agent, core/runner/agent.c), speaking
 * the runner protocol (protocol.h, "Remote") over ssh's stdin/stdout.
 *
 * ssh is the system's OpenSSH client, so ~/.ssh/config, agents, jump hosts
 * and known_hosts apply; $AOTIDBG_SSH replaces the command ("ssh -p 2222 -i
 * key", split like a shell would, without expansions). The remote command
 * execs `aotidbg-agent --serve --runner RUNNER` when the agent lies beside
 * RUNNER (it starts without loading libtorch), else `RUNNER --serve`; RUNNER
 * is --remote-runner's path or `aotidbg-runner` on the PATH of a
 * non-interactive ssh session there.
 *
 * The connection carries requests answered in order (remote_call and the
 * helpers below: package bytes, hashes, the box's facts, extraction, pushed
 * files) and the frames of a spawned runner, which are queued for the
 * runner client (runner_client.h) together with the agent's LOG and EXIT
 * frames, in arrival order (remote_take_frames).
 *
 * Failures say what happened and what to do: ssh's own message for a host
 * key or authentication failure, which runner is missing or too old and how
 * to build one, "connection lost" with ssh's last words. remote_connect's
 * failures are the user's to fix (exit code 2 in the commands).
 * Ownership: a remote owns the ssh child process and its fds; remote_close()
 * ends the connection (the agent then kills its runner and removes its files)
 * and reaps ssh. Not thread-safe. */
#ifndef AOTIDBG_REMOTE_H
#define AOTIDBG_REMOTE_H
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "host_facts.h"
#include "protocol.h"
#include "strbuf.h"

typedef struct {
    const char *target;        /* [USER@]HOST[:PORT] (or [IPv6]:PORT) */
    const char *runner_path;   /* on HOST; NULL: "aotidbg-runner" on its PATH */
    double idle_s;             /* the agent leaves after this long without a word; 0: 300 s */
    int batch;                 /* no password prompts (ssh -o BatchMode=yes) */
    double timeout_s;          /* --timeout: the longest wait for HELLO, a call's reply, or the rest of a
                                  frame begun; 0: no limit */
    const char *const *env;    /* NULL-terminated "NAME=VALUE" (NAME: letters, digits, '_'), exported by
                                  the remote command before the agent starts, so every runner it spawns
                                  has them (a --ranks rank's torch.distributed variables); NULL: none */
} remote_options;

typedef struct remote remote;

/* Starts ssh and waits for the agent's HELLO. -1 with err saying why. */
int remote_connect(remote **out, const remote_options *o, strbuf *err);
const char *remote_host(const remote *r);            /* the target as given */
/* The HOST of a [USER@]HOST[:PORT] target (an IPv6 address without its
 * brackets) into host; -1 with err when the target is not that form. */
int remote_target_host(const char *target, char *host, size_t n, strbuf *err);

/* For poll(): the connection and ssh's stderr; -1 when closed. */
int remote_fd(const remote *r);
/* Reads what arrived (waiting at most timeout_ms): frames for the runner
 * client are queued, REPLY frames kept for remote_call. Sends a PING when
 * the line was quiet for a while. 0, or -1 when the connection is gone
 * (err says how: ssh's last words). */
int remote_pump(remote *r, int timeout_ms, strbuf *err);
int remote_alive(const remote *r);
/* Moves the queued frames (runner frames, LOG, EXIT) to the end of dst. */
void remote_take_frames(remote *r, strbuf *dst);
/* ssh's stderr lines since the last call (its warnings, the agent's notes). */
void remote_take_stderr(remote *r, strbuf *dst);

int remote_send(remote *r, const proto_msg *m, strbuf *err);
/* The same for a frame already encoded (buf holds whole frames). */
int remote_send_raw(remote *r, const char *buf, size_t n, strbuf *err);

/* Reads up to len bytes at off of a file there; *got bytes, *size the file's. */
int remote_fread(remote *r, const char *path, uint64_t off, void *buf, size_t len, size_t *got, uint64_t *size,
                 strbuf *err);
/* A whole file there into sb (at most max bytes). */
int remote_read_file(remote *r, const char *path, size_t max, strbuf *sb, strbuf *err);
int remote_sha256(remote *r, const char *path, char hex[65], strbuf *err);
/* The box's facts; so_path (may be NULL): also whether that .so loads there. */
int remote_facts(remote *r, const char *so_path, host_facts *hf, strbuf *err);
/* Extracts the entries under prefixes ("\n"-separated, root included) of the
 * package there; *dir (malloc'd) is the folder holding them, root stripped. */
int remote_extract(remote *r, const char *pkg_path, const char *prefixes, char **dir, strbuf *err);
/* Copies a local file to the agent's private folder as `name`; *path (malloc'd)
 * is where it is there. progress (may be NULL) is told the bytes sent. */
int remote_push(remote *r, const char *local_path, const char *name, char **path,
                void (*progress)(uint64_t sent, uint64_t total, void *ctx), void *ctx, strbuf *err);

/* A private folder here for copies of remote files, made on first use and
 * removed by remote_close(). NULL with err when it cannot be made. */
const char *remote_local_dir(remote *r, strbuf *err);

void remote_close(remote *r);

#endif
