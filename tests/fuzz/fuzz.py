#!/usr/bin/env python3
"""Fuzzes ctrl with hostile but fixed-seed input (issue 26).

    fuzz.py KIND CTRL SAMPLES_DIR WORKDIR [--cases N] [--seed S] [--jobs J]

KIND is one of
  cmdline   command lines mutated from a corpus of valid ones
  trace     trace files: mutated bytes, and checksum-valid edits of the
            protobuf payload (header: "CTRLTRC1", le64 length, le64 FNV-1a
            64 of the payload: controller/reports/TraceFile.cpp)
  batch     --batch scripts for the stepping prompt
  gdb       RSP packets to `ctrl attach --gdb 0`, many per ctrl process
  programs  unusual programs: static, a #! script, a setuid-bit copy, exits
            from signal handlers, 200 threads

Every case asserts: ctrl does not exit 3 (internal error), is not killed by
a signal, ends within its timeout, leaves no process of the target (each
case runs a copy of the program under a name of its own, found with
pgrep -x), and leaves no empty file, empty directory or `.ctrl-*` file in
its working directory. Exit-3 results whose stderr matches an entry of
XFAIL are printed as known and do not fail the run; any other does.
"""
import argparse
import os
import random
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import threading
import time

# Known exit-3 classes (stderr regex -> why). The run fails on any other.
XFAIL = {
    # A checksum-valid edit of a trace's steps replays into a divergence,
    # which `ctrl replay` reports as exit 3; validating a trace's fields
    # against the program (exit 2) is issue 26 item 4.
    r"replay diverged at step": "edited trace diverges (issue 26 item 4: trace validation)",
}

CASE_TIMEOUT = 30.0


class Fuzz:
    def __init__(self, args):
        self.ctrl = os.path.abspath(args.ctrl)
        self.samples = os.path.abspath(args.samples)
        self.work = os.path.abspath(args.workdir)
        self.rng = random.Random(args.seed)
        self.failures = []
        self.known = []
        self.lock = threading.Lock()
        self.count = 0
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        # One copy of each program under a unique name per run: pgrep -x
        # finds what a case left running.
        self.tag = "fz%d" % (os.getpid() % 100000)
        self.programs = {}
        for name in ("mutex_counter", "deadlock_lock_order", "lost_update_plain", "exit_from_handler"):
            src = os.path.join(self.samples, name)
            if not os.path.exists(src):
                continue
            short = self.tag + name[:6]
            dst = os.path.join(self.work, short)
            shutil.copy(src, dst)
            os.chmod(dst, 0o755)
            self.programs[name] = dst

    def copy(self, name, where):
        """A copy of sample `name` in `where` under a name no other case
        uses (cases run in parallel: pgrep -x must find this case's only)."""
        with self.lock:
            self.copies = getattr(self, "copies", 0) + 1
            n = self.copies
        dst = os.path.join(where, "%s%s%d" % (self.tag[:7], name[:2], n))
        shutil.copy(self.programs[name], dst)
        os.chmod(dst, 0o755)
        return dst

    # ---- running one case ----
    def run(self, label, argv, cwd=None, stdin=None, timeout=CASE_TIMEOUT, ok=(0, 1, 2), names=None):
        case = cwd or os.path.join(self.work, "case")
        os.makedirs(case, exist_ok=True)
        before = set(os.listdir(case))
        start = time.time()
        try:
            p = subprocess.run(argv, cwd=case, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=timeout, start_new_session=True)
            rc, err = p.returncode, p.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            rc, err = "timeout", (e.stderr or b"").decode(errors="replace")
        took = time.time() - start
        self.check(label, argv, rc, err, took, case, before, names)
        return rc, err

    def check(self, label, argv, rc, err, took, case, before, names=None):
        problems = []
        if rc == "timeout":
            problems.append("no end within %.0f s (hang)" % CASE_TIMEOUT)
            self.kill_left(names)
        elif rc < 0:
            problems.append("killed by signal %d (crash)" % -rc)
        elif rc == 3:
            import re
            for pattern, why in XFAIL.items():
                if re.search(pattern, err):
                    with self.lock:
                        self.known.append((label, why))
                    break
            else:
                problems.append("exit 3 (internal error)")
        elif rc not in (0, 1, 2):
            problems.append("exit status %d" % rc)
        left = self.left_processes(names)
        if left:
            problems.append("processes left: " + " ".join(left))
            self.kill_left(names)
        for entry in set(os.listdir(case)) - before:
            path = os.path.join(case, entry)
            if entry.startswith(".ctrl-"):
                problems.append("left file " + entry)
            elif os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path):
                problems.append("left empty directory " + entry)
            elif os.path.isfile(path) and os.path.getsize(path) == 0:
                problems.append("left empty file " + entry)
        with self.lock:
            self.count += 1
            if problems:
                self.failures.append((label, argv, problems, err.strip().splitlines()[-3:]))

    def left_processes(self, names=None):
        names = names or [os.path.basename(p) for p in self.programs.values()]
        out = []
        for n in names:
            # What ctrl leaves ends by itself as ctrl exits (EXITKILL, the
            # parent-death signal, the fork server's own stop): moments,
            # longer on a loaded machine. Still there after 5 s: left.
            for _ in range(100):
                r = subprocess.run(["pgrep", "-x", n[:15]], stdout=subprocess.PIPE)
                if r.returncode != 0:
                    break
                time.sleep(0.05)
            else:
                out += [n + ":" + pid for pid in r.stdout.decode().split()]
        return out

    def kill_left(self, names=None):
        names = names or [os.path.basename(p) for p in self.programs.values()]
        for n in names:
            subprocess.run(["pkill", "-9", "-x", n[:15]])

    def parallel(self, jobs, cases):
        """Runs callables `cases` on `jobs` threads."""
        it = iter(cases)
        it_lock = threading.Lock()

        def worker():
            while True:
                with it_lock:
                    c = next(it, None)
                if c is None:
                    return
                c()

        ts = [threading.Thread(target=worker) for _ in range(jobs)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    # ---- mutation helpers ----
    def mutate_tokens(self, rng, tokens, pool):
        t = list(tokens)
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(6)
            i = rng.randrange(len(t) + 1)
            if op == 0 and t:
                del t[min(i, len(t) - 1)]
            elif op == 1:
                t.insert(i, rng.choice(pool))
            elif op == 2 and t:
                j = min(i, len(t) - 1)
                t[j] = rng.choice(pool)
            elif op == 3 and len(t) > 1:
                j, k = rng.randrange(len(t)), rng.randrange(len(t))
                t[j], t[k] = t[k], t[j]
            elif op == 4 and t:
                j = min(i, len(t) - 1)
                s = t[j]
                if s:
                    c = rng.randrange(len(s))
                    s = s[:c] + rng.choice(["", "0", "-", "=", "x", "\x01", "9" * 20, " "]) + s[c + 1:]
                t[j] = s
            else:
                t.insert(i, rng.choice(["-1", "0", "18446744073709551616", "1e9", "nan", "", "--", "%s", "é"]))
        return t


NUMS = ["0", "1", "2", "-1", "3", "99999999999999999999", "0x10", "1.5", "abc", ""]


def kind_cmdline(f, cases, jobs):
    prog = f.programs["mutex_counter"]
    bug = f.programs["deadlock_lock_order"]
    corpus = [
        ["attach", prog],
        ["attach", "--strategy", "random", "--seed", "3", "--max-executions", "5", prog],
        ["attach", "--strategy", "pct", "--pct-depth", "2", "--max-executions", "5", prog],
        ["attach", "--max-executions", "3", "--model", "tso", prog],
        ["attach", "--visible", "atomics", "--max-executions", "3", prog],
        ["attach", "--time-limit", "1", "--max-steps", "1000", prog],
        ["attach", "--json", "r.json", "--trace-dir", "tr", "--max-executions", "3", bug],
        ["attach", "--keep-going", "--no-shrink", "--max-executions", "4", bug],
        ["attach", "--hang-timeout", "1", "--max-executions", "2", prog],
        ["attach", "--races", "all", "--max-executions", "3", prog],
        ["attach", "--fail-on-exit", "nonzero", "--max-executions", "3", prog],
        ["attach", "-j", "2", "--max-executions", "4", prog],
        ["attach", "--equivalence", "rf", "--max-executions", "3", prog],
        ["replay", "missing.ctrltrace"],
        ["--version"],
        ["attach", "--help"],
    ]
    pool = ["--strategy", "random", "dpor", "pct", "--seed", "--max-executions", "--model", "sc", "tso", "pso",
            "c11", "--visible", "all", "atomics", "--json", "/dev/full", "/", "--trace-dir", "/proc", "--batch",
            "/dev/null", "--gdb", "--instrument", "libc.so.6", "libm.so.6", "--time-limit", "--max-steps",
            "--hang-timeout", "-j", "--races", "off", "--keep-going", "--no-rollback", "--show-output", "--",
            "--dpor", "optimal", "--preemption-bound", "--fail-on-exit", "--limit-exit", "--sarif", "--junit",
            "--equivalence", "rf", "--interactive", prog, bug, "/bin/true", "/nonexistent", "."] + NUMS
    # Runs that explore are bounded: every case gets a limit it cannot lift.
    rng = f.rng
    made = []
    for n in range(cases):
        base = rng.choice(corpus)
        argv = f.mutate_tokens(rng, base, pool)
        if "--interactive" in argv or "--gdb" in argv:
            argv = [a for a in argv if a not in ("--interactive", "--gdb")]
        if argv[:1] == ["attach"]:
            argv = ["attach", "--time-limit", "1", "--max-executions", "3"] + argv[1:]
        made.append((n, argv))

    def case(n, argv):
        d = os.path.join(f.work, "cmd%d" % n)
        os.makedirs(d)
        mine = {prog: f.copy("mutex_counter", d), bug: f.copy("deadlock_lock_order", d)}
        argv = [mine.get(a, a) for a in argv]
        f.run("cmdline #%d" % n, [f.ctrl] + argv, cwd=d, stdin=b"",
              names=[os.path.basename(x) for x in mine.values()])

    f.parallel(jobs, [lambda n=n, a=a: case(n, a) for n, a in made])


def fnv1a64(b):
    h = 0xcbf29ce484222325
    for c in b:
        h ^= c
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def seal(payload):
    return b"CTRLTRC1" + struct.pack("<QQ", len(payload), fnv1a64(payload)) + payload


def kind_trace(f, cases, jobs):
    # Traces to mutate: a deadlock's and a lost update's, recorded here.
    seeds = []
    names = []
    for name in ("deadlock_lock_order", "lost_update_plain"):
        d = os.path.join(f.work, "rec-" + name)
        os.makedirs(d)
        subprocess.run([f.ctrl, "attach", "--trace-dir", "tr", f.programs[name]], cwd=d, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)
        for t in sorted(os.listdir(os.path.join(d, "tr")))[:1]:
            seeds.append(open(os.path.join(d, "tr", t), "rb").read())
            names.append(name)
    if not seeds:
        f.failures.append(("trace", [], ["no trace recorded to mutate"], []))
        return
    rng = f.rng
    made = []
    for n in range(cases):
        pick = n % len(seeds)
        data = bytearray(seeds[pick])
        payload = bytearray(data[24:])
        valid = n % 8 == 0  # an eighth keep a valid checksum: they get to replay (slower)
        if valid:
            for _ in range(rng.randint(1, 4)):
                op = rng.randrange(4)
                i = rng.randrange(len(payload))
                if op == 0:
                    payload[i] = rng.randrange(256)
                elif op == 1:
                    payload[i] ^= 1 << rng.randrange(8)
                elif op == 2:
                    del payload[i:i + rng.randint(1, 8)]
                else:
                    payload[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            out = seal(bytes(payload))
        else:
            op = rng.randrange(4)
            if op == 0:
                for _ in range(rng.randint(1, 8)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
            elif op == 1:
                data = data[:rng.randrange(len(data))]
            elif op == 2:
                data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
            else:
                i = rng.randrange(24)
                data[i] = rng.randrange(256)
            out = bytes(data)
        made.append((n, out, valid, pick))

    def case(n, out, valid, pick):
        d = os.path.join(f.work, "tr%d" % n)
        os.makedirs(d)
        with open(os.path.join(d, "t.ctrltrace"), "wb") as fh:
            fh.write(out)
        # The recorded program, copied under this case's own name.
        mine = f.copy(names[pick], d) if valid else None
        f.run("trace #%d (%s)" % (n, "checksum-valid edit" if valid else "mutated bytes"),
              [f.ctrl, "replay"] + (["--program", mine] if mine else []) + ["t.ctrltrace"], cwd=d, stdin=b"",
              timeout=CASE_TIMEOUT, names=[os.path.basename(mine)] if mine else ["-none-"])

    f.parallel(jobs, [lambda n=n, o=o, v=v, k=k: case(n, o, v, k) for n, o, v, k in made])


BATCH_WORDS = ["threads", "info threads", "buffers", "step", "s", "next", "n", "continue", "c", "back", "goto",
               "break", "b", "watch", "delete", "d", "info breakpoints", "bt", "bt all", "regs", "print", "p",
               "x/4xg", "x/s", "checkpoint", "info checkpoints", "restart", "schedule", "save", "explore",
               "time", "help", "quit", "frobnicate", ""]
BATCH_ARGS = ["", "0", "1", "3", "100", "-1", "T0", "T1", "T9", "F0", "main", "worker", "counter", "&counter",
              "*counter", "counter[99999]", "0x0", "0xffffffffffffffff", "mutex_counter.c:10", "/dev/full",
              "/nonexistent/dir/x", "s.ctrltrace", "--strategy random --max-executions 3", "--time-limit 1",
              "--max-executions 0", "--trace-dir /proc", "999999999999999999999", "next 2"]


def kind_batch(f, cases, jobs):
    # Several cases (mutated command sequences) per ctrl process, one after
    # the other in one script: a bad command costs a line, not a process.
    prog = f.programs["mutex_counter"]
    rng = f.rng
    per = 10
    made = []
    for n in range((cases + per - 1) // per):
        lines = []
        for _ in range(per):
            for _ in range(rng.randint(1, 6)):
                w = rng.choice([x for x in BATCH_WORDS if x not in ("quit", "q")])
                a = rng.choice(BATCH_ARGS) if rng.random() < 0.6 else ""
                lines.append((w + " " + a).strip())
        if rng.random() < 0.8:
            lines.append("quit")
        made.append((n, "\n".join(lines) + "\n"))

    def case(n, script):
        d = os.path.join(f.work, "b%d" % n)
        os.makedirs(d)
        with open(os.path.join(d, "s.batch"), "w") as fh:
            fh.write(script)
        mine = f.copy("mutex_counter", d)
        f.run("batch script #%d (%d cases) %r" % (n, per, script), [f.ctrl, "attach", "--batch", "s.batch", mine],
              cwd=d, stdin=b"", names=[os.path.basename(mine)])
        with f.lock:
            f.count += per - 1

    f.parallel(jobs, [lambda n=n, s=s: case(n, s) for n, s in made])


def rsp(body):
    return b"$" + body + b"#%02x" % (sum(body) & 0xFF)


GDB_PACKETS = [b"?", b"g", b"G00", b"m0,8", b"m400000,4", b"mffffffffffffffff,10", b"M0,1:00", b"c", b"s", b"bc",
               b"bs", b"vCont?", b"vCont;c", b"vCont;s:1", b"Hg0", b"Hg1", b"Hc-1", b"Hgffff", b"T1", b"T99",
               b"qfThreadInfo", b"qsThreadInfo", b"qC", b"qAttached", b"qSupported:multiprocess+", b"qOffsets",
               b"qXfer:features:read:target.xml:0,fff", b"qXfer:threads:read::0,fff", b"Z0,401000,1",
               b"z0,401000,1", b"Z2,0,8", b"p10", b"P10=00", b"qRcmd,68656c70", b"qRcmd,7468726561647",
               b"qRcmd,736176652f6465762f66756c6c", b"vKill;1", b"D", b"X0,0:", b"x0,0", b"", b"qL", b"vMustReplyEmpty"]


def kind_gdb(f, cases, jobs):
    prog = f.programs["mutex_counter"]
    rng = f.rng
    per = 25  # packets per ctrl process
    batches = []
    for b in range((cases + per - 1) // per):
        pk = []
        for _ in range(per):
            p = bytearray(rng.choice(GDB_PACKETS))
            if rng.random() < 0.5 and p:
                for _ in range(rng.randint(1, 3)):
                    i = rng.randrange(len(p) + 1)
                    op = rng.randrange(3)
                    if op == 0 and i < len(p):
                        p[i] = rng.choice(b"0123456789abcdef,;:$#}*xXZ")
                    elif op == 1:
                        p[i:i] = bytes([rng.randrange(32, 127)])
                    elif i < len(p):
                        del p[i]
            raw = rsp(bytes(p)) if rng.random() < 0.9 else bytes(rng.randrange(256) for _ in range(rng.randint(1, 30)))
            pk.append(raw)
        batches.append((b, pk))

    def session(b, packets):
        d = os.path.join(f.work, "g%d" % b)
        os.makedirs(d)
        mine = f.copy("mutex_counter", d)
        argv = [f.ctrl, "attach", "--gdb", "0", mine]
        before = set(os.listdir(d))
        err_path = os.path.join(d, "..", "g%d.err" % b)
        err_fh = open(err_path, "wb")
        start = time.time()
        p = subprocess.Popen(argv, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err_fh,
                             start_new_session=True)
        port = None
        while time.time() - start < 20 and p.poll() is None:
            import re
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(err_path, errors="replace").read())
            if m:
                port = int(m.group(1))
                break
            time.sleep(0.05)
        sent = 0
        if port:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.settimeout(2)
                for raw in packets:
                    try:
                        s.sendall(raw)
                        s.recv(65536)
                    except socket.timeout:
                        pass
                    sent += 1
                s.close()
            except OSError:
                pass
        # What was not sent (ctrl ended the connection) still counts as cases
        # of this session: ctrl was judged on all it got.
        try:
            rc = p.wait(timeout=CASE_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = "timeout"
        err_fh.close()
        err = open(err_path, errors="replace").read()
        f.check("gdb session #%d (%d packets sent)" % (b, sent), argv, rc, err, time.time() - start, d, before,
                [os.path.basename(mine)])
        with f.lock:
            f.count += len(packets) - 1

    f.parallel(jobs, [lambda b=b, pk=pk: session(b, pk) for b, pk in batches])


def kind_programs(f, cases, jobs):
    # Unusual programs, each under a few option sets.
    d = os.path.join(f.work, "progs")
    os.makedirs(d)
    progs = {}
    mc = f.programs["mutex_counter"]
    # A static build is refused or run, never an internal error.
    cc = shutil.which("cc") or shutil.which("gcc")
    src = os.path.join(d, "s.c")
    with open(src, "w") as fh:
        fh.write("#include <pthread.h>\nstatic int n;\nstatic void*w(void*a){n++;return a;}\n"
                 "int main(void){pthread_t t;pthread_create(&t,0,w,0);n++;pthread_join(t,0);return 0;}\n")
    if cc:
        for name, extra in (("static", ["-static"]), ("thr200", [])):
            out = os.path.join(d, f.tag + name)
            code = src
            if name == "thr200":
                code = os.path.join(d, "t.c")
                with open(code, "w") as fh:
                    fh.write("#include <pthread.h>\nstatic void*w(void*a){return a;}\n"
                             "int main(void){pthread_t t[200];for(int i=0;i<200;i++)pthread_create(&t[i],0,w,0);"
                             "for(int i=0;i<200;i++)pthread_join(t[i],0);return 0;}\n")
            if subprocess.run([cc, "-O1", "-pthread", "-o", out, code] + extra).returncode == 0:
                progs[name] = out
    script = os.path.join(d, f.tag + "script")
    with open(script, "w") as fh:
        fh.write("#!/bin/sh\nexec %s \"$@\"\n" % mc)
    os.chmod(script, 0o755)
    progs["script"] = script
    setuid = os.path.join(d, f.tag + "setuid")
    shutil.copy(mc, setuid)
    os.chmod(setuid, 0o755 | stat.S_ISUID)
    progs["setuid"] = setuid
    if "exit_from_handler" in f.programs:
        progs["exit_from_handler"] = f.programs["exit_from_handler"]
    options = [[], ["--strategy", "random", "--max-executions", "20"], ["--no-rollback", "--max-executions", "10"],
               ["--visible", "atomics"], ["--time-limit", "2"]]
    made = [(name, path, opts) for name, path in sorted(progs.items()) for opts in options]
    made = (made * (cases // len(made) + 1))[:max(cases, len(made))]

    def case(i, name, path, opts):
        c = os.path.join(f.work, "p%d" % i)
        os.makedirs(c)
        f.run("program %s %s" % (name, " ".join(opts)),
              [f.ctrl, "attach", "--time-limit", "10", "--max-executions", "200"] + opts + [path], cwd=c, stdin=b"",
              names=[os.path.basename(p) for p in progs.values()])

    # One at a time: its programs are shared by the cases (pgrep -x by name).
    f.parallel(1, [lambda i=i, m=m: case(i, *m) for i, m in enumerate(made)])


KINDS = {"cmdline": kind_cmdline, "trace": kind_trace, "batch": kind_batch, "gdb": kind_gdb,
         "programs": kind_programs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=sorted(KINDS))
    ap.add_argument("ctrl")
    ap.add_argument("samples")
    ap.add_argument("workdir")
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    f = Fuzz(args)
    start = time.time()
    KINDS[args.kind](f, args.cases, args.jobs)
    print("%s: %d cases (seed %d) in %.1f s" % (args.kind, f.count, args.seed, time.time() - start))
    for label, why in f.known:
        print("known (xfail): %s: %s" % (label, why))
    for label, argv, problems, err in f.failures:
        print("FAIL %s: %s" % (label, "; ".join(problems)))
        print("   command: %s" % " ".join(repr(a) if " " in a or not a else a for a in argv))
        for line in err:
            print("   stderr: %s" % line)
    if f.failures:
        print("%d of %d cases failed" % (len(f.failures), f.count))
        return 1
    if f.count < args.cases:
        print("only %d cases ran, %d asked for" % (f.count, args.cases))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
