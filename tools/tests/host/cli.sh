#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host test of 'ibpost run's command line (make check, no guest, no
# /dev/ibpost; about a second).  Through the hidden --print-options, which
# prints every parsed field and opens nothing:
#   - every perftest spelling against its long form (same fields), and the
#     option changing something (not the defaults), -F against nothing;
#   - perftest options ibpost lacks: the hint naming the equivalent; every
#     option of perftest's own table taken or refused so, and in the man
#     page's PERFTEST OPTIONS table;
#   - the man page's options of each command against its --help;
#   - --dev left out: the device picked from a sysfs tree built here
#     (IBPOST_SYSFS_IB): the first ACTIVE one; the one whose GID table
#     lists lo for --connect 127.0.0.1 (the route this host takes);
#     none or ambiguous with the reason; -x passed on (the kernel checks
#     it), refused with --cm/--connect;
#   - times (one parser for every time option of run, serve and blk map,
#     whose hidden --print-options print their values too): suffixes, bare
#     numbers as before, the refusals' exact words; sizes the same way.
# TAP on stdout and in $TAP_FILE.  Usage: tools/tests/host/cli.sh [IBPOST]
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
# shellcheck source=tools/tests/lib/tap.sh
. tools/tests/lib/tap.sh
IBPOST=${1:-tools/ibpost/ibpost}
[[ -x $IBPOST ]] || { echo "no $IBPOST: make tool first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# CMD: the command whose --print-options opts() calls (run, serve, blk map)
CMD=run
# shellcheck disable=SC2086 # "blk map" is two words
opts() { "$IBPOST" $CMD "$@" --print-options 2>&1; }

# same NAME "ALIAS ARGS" "LONG ARGS": the fields match, and differ from
# the defaults (so the option did something).
BASE=(-d rxe_t0)
same() {
	local name=$1 a b d
	# shellcheck disable=SC2086
	a=$(opts "${BASE[@]}" $2) b=$(opts "${BASE[@]}" $3) d=$(opts "${BASE[@]}")
	if [[ $a != "$b" ]]; then
		t_fail "$name: '$2' is '$3'" "$(diff <(echo "$a") <(echo "$b") | tr '\n' ' ')"
	elif [[ $a == "$d" && ${4:-} != noop ]]; then
		t_fail "$name: '$2' is '$3'" "no field changed: $(head -n 2 <<<"$a" | tr '\n' ' ')"
	else
		t_ok "$name: '$2' is '$3'"
	fi
}

# --- perftest's spellings against ibpost's long options ------------------------------
BASE=()
same "perftest -d" "-d mlx5_0" "--dev mlx5_0"
same "perftest --ib-dev" "--ib-dev mlx5_0" "--dev mlx5_0"
BASE=(-d rxe_t0)
same "perftest -i (IB port)" "-i 2" "--port 2"
same "perftest --ib-port" "--ib-port 2" "--port 2"
same "perftest -p (rdma_cm port)" "-p 7000 --connect 192.0.2.1" "--connect 192.0.2.1 --cm-port 7000"
same "perftest -p is the port of --connect" "-p 7000 --connect 192.0.2.1" "--connect 192.0.2.1:7000"
same "perftest -t (tx depth)" "-t 8" "--depth 8"
same "perftest --tx-depth" "--tx-depth 8" "--depth 8"
same "perftest -l (post list)" "-l 4" "--batch 4"
same "perftest --post_list" "--post_list 4" "--batch 4"
same "perftest -Q (cq moderation)" "-Q 2" "--signal-every 2"
same "perftest --cq-mod" "--cq-mod 2" "--signal-every 2"
same "perftest -I (inline size)" "-I 256" "--inline-size 256"
same "perftest --inline_size" "--inline_size 256" "--inline-size 256"
same "perftest --report_gbits" "--report_gbits" "--report-gbits"
same "perftest -F (no-op)" "-F" "" noop
same "perftest -z (no-op: rdma_cm already)" "-z" "" noop
same "perftest --comm_rdma_cm (no-op)" "--comm_rdma_cm" "" noop
same "perftest -H" "-H" "--hist"
same "perftest --report-histogrm" "--report-histogrm" "--hist"
same "perftest's --help: --report-histogram" "--report-histogram" "--hist"
same "perftest --CPU-freq (no-op)" "--CPU-freq" "" noop
same "perftest -a" "-a" "--all-sizes"
same "perftest --all" "--all" "--all-sizes"
same "perftest -q (QPs)" "-q 4" "--qps 4"
same "perftest --qp" "--qp 4" "--qps 4"
same "perftest -s" "-s 4096" "--size 4K"
same "perftest -n" "-n 10" "--iters 10"
same "perftest -D" "-D 2" "--duration 2"
same "perftest --run_infinitely" "--run_infinitely" "--forever"
same "--report-every in seconds" "--report-every 0.5" "--report-every 0.5"
# has NAME "ARGS" FIELD=VALUE...: every field so after ARGS.
has() {
	local name=$1 args=$2 out f miss=
	shift 2
	# shellcheck disable=SC2086
	out=$(opts "${BASE[@]}" $args)
	for f in "$@"; do
		grep -qx -- "$f" <<<"$out" || miss+=" $f"
	done
	if [[ -z $miss ]]; then
		t_ok "$name: '$args' gives $*"
	else
		t_fail "$name: '$args' gives $*" "missing:$miss"
	fi
}
has "--forever: until a signal, progress every 5 s" "--forever" forever=1 \
	duration_ms=4294967295 iters=0 report_ms=5000
has "--forever --report-every 2" "--forever --report-every 2" forever=1 \
	report_ms=2000
has "--report-every alone: no --forever" "--report-every 1 -D 3" forever=0 \
	duration_ms=3000 report_ms=1000
has "no progress rows by default" "" forever=0 report_ms=0
same "perftest's last argument HOST" "192.0.2.1" "--connect 192.0.2.1"
same "perftest HOST with -p" "-p 7000 192.0.2.1" "--connect 192.0.2.1:7000"
same "a host name (getaddrinfo)" "--connect localhost:7000" "--connect 127.0.0.1:7000"
same "a host name as the last argument" "localhost" "--connect 127.0.0.1"

v1=$("$IBPOST" run -V 2>&1) v2=$("$IBPOST" run --version 2>&1) v3=$("$IBPOST" --version 2>&1)
if [[ $v1 == "$v2" && $v1 == "$v3" && $v1 == "ibpost "* ]]; then
	t_ok "perftest -V: 'run -V' is 'run --version' is 'ibpost --version'"
else
	t_fail "perftest -V: 'run -V' is 'run --version' is 'ibpost --version'" "'$v1' '$v2' '$v3'"
fi

s1=$("$IBPOST" serve -p 70000 2>&1) s2=$("$IBPOST" serve --port 70000 2>&1)
if [[ $s1 == "$s2" && $s1 == *"bad --port '70000': too large"* ]]; then
	t_ok "perftest's server -p: 'serve -p' is 'serve --port'"
else
	t_fail "perftest's server -p: 'serve -p' is 'serve --port'" "'$s1' '$s2'"
fi

# -x/--gid-index: the index goes to the kernel (IBPOST_RUN_GID, which
# checks it against the port's GID table); any index, 0 too, is given.
same "perftest -x (GID index)" "-x 1" "--gid-index 1"
same "perftest --gid-index" "--gid-index 0" "-x 0"
out=$(opts -d rxe_t0 -x 3)
if grep -qx "gid_index=3" <<<"$out" && opts -d rxe_t0 | grep -qx "gid_index=-1"; then
	t_ok "-x 3 gives gid_index 3, none gives -1 (ibpost's pick)"
else
	t_fail "-x 3 gives gid_index 3, none gives -1 (ibpost's pick)" "$(grep gid_index <<<"$out")"
fi

# -x N through rdma_cm (perftest's -x N -R HOST, ib_write_bw -x 3 HOST): kept
# for the output, not sent (rdma_cm takes the GID of the address), and a
# note says so.
has "perftest -x N HOST: accepted, not used" "-x 3 192.0.2.1" gid_index=3 gid_unused=1 \
	connect=192.0.2.1 \
	"ibpost: run: note: -x 3 is not used: through rdma_cm (--connect) the source GID is the one of the address"
same "perftest's HOST before the options (getopt permutes)" "192.0.2.1 -x 3" "-x 3 --connect 192.0.2.1"
has "perftest -x N with --cm: accepted, not used" "--gid-index 0 --cm 192.0.2.1" gid_index=0 \
	gid_unused=1 cm=192.0.2.1
has "-x on the loopback pair: used" "-x 1" gid_index=1 gid_unused=0

# perftest's spellings of what issue 29 added: -R, -b, --out_json[_file],
# --cpu_util, -w/--limit_bw, -y/--limit_msgrate; and the thresholds.
same "perftest -b" "-b" "--bidirectional"
has "-b: -q's QPs each way" "-b -q 3" bidir=1 qps=6
same "perftest -R" "-R" "--rdma-cm" noop
same "perftest --rdma_cm" "--rdma_cm" "-R" noop
has "perftest -R HOST: rdma_cm already (a no-op)" "-R 192.0.2.1" rdma_cm=1 connect=192.0.2.1 cm=
has "perftest -R with --cm: a no-op" "-R --cm 192.0.2.9" rdma_cm=1 cm=192.0.2.9
same "perftest --out_json" "--out_json" "--out-json"
has "--out-json: perftest's file name" "--out-json" out_json_file=perftest_out.json
same "perftest --out_json_file" "--out_json_file r.json" "--out-json-file r.json"
has "--out_json_file: the file" "--out_json --out_json_file r.json" out_json_file=r.json
same "perftest --cpu_util" "--cpu_util" "--cpu-util"
same "perftest -w (--limit_bw)" "-w 100.5" "--min-bw 100.5"
same "perftest --limit_bw" "--limit_bw 100.5" "--min-bw 100.5"
same "perftest -y (--limit_msgrate)" "-y 0.25" "--min-mpps 0.25"
same "perftest --limit_msgrate" "--limit_msgrate 0.25" "--min-mpps 0.25"
has "thresholds: none by default" "" min_bw=-1 min_mpps=-1 max_lat_p50_us=-1 max_lat_p99_us=-1
has "thresholds: the four" "--min-bw 10 --min-mpps 0.01 --max-lat-p50 200 --max-lat-p99 900.5" \
	min_bw=10 min_mpps=0.01 max_lat_p50_us=200 max_lat_p99_us=900.5
v=$("$IBPOST" run --help)
if grep -q "^2 bad options, 3 a result missed a threshold" <<<"$v"; then
	t_ok "run --help: exit status 3, a threshold missed"
else
	t_fail "run --help: exit status 3, a threshold missed" "$(grep -A3 '^Exit status' <<<"$v" | tr '\n' ' ')"
fi

# --- refusals and perftest's options ibpost lacks ---------------------------------
# The forms a refused time's message names, up to its bare unit.
TF=" (a number with ns, us, ms, s, m or h: 500ms, 10s, 2m, 1h, 1.5s; a bare number is"
# refused WANT_LINE ARGS...: exit 2 and WANT_LINE among the output.
refused() {
	local want=$1 out rc=0
	shift
	# shellcheck disable=SC2086 # "blk map" is two words
	out=$("$IBPOST" $CMD "$@" 2>&1) || rc=$?
	if [[ $rc == 2 ]] && grep -Fxq -- "$want" <<<"$out"; then
		t_ok "$CMD $*: $want"
	else
		t_fail "$CMD $*: $want" "exit $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"
	fi
}
refused "ibpost: run: -b/--bidirectional: not with --connect: 'ibpost serve' never posts toward its client (the server's QP only receives and answers; its buffers are the only ones the job registers), so run 'ibpost serve' here and 'ibpost run --connect' from the other host as well" \
	-d x -b 192.0.2.1
refused "ibpost: run: -b/--bidirectional runs -q's QPs each way: -q 33 is above 32" -d x -b -q 33
refused "ibpost: run: -b/--bidirectional with --pingpong: a ping-pong already goes both ways; give one" -d x -b --pingpong
refused "ibpost: run: --cm-timeout needs --connect, --cm or -R" -d x --cm-timeout 700
refused "ibpost: run: bad --min-bw '0': expected MiB/s (Gb/s with --report-gbits) above 0" -d x --min-bw 0
refused "ibpost: run: bad --min-bw 'nan': expected MiB/s (Gb/s with --report-gbits) above 0" -d x -w nan
refused "ibpost: run: bad --min-mpps '1x': expected Mpps above 0" -d x --limit_msgrate 1x
refused "ibpost: run: bad --max-lat-p99 '-5': not a time$TF microseconds)" -d x --max-lat-p99 -5
refused "ibpost: run: bad --max-lat-p50 'inf': not a time$TF microseconds)" -d x --max-lat-p50 inf
refused "ibpost: run: bad --max-lat-p50 '0': expected microseconds above 0" -d x --max-lat-p50 0
refused "ibpost: run: bad --out-json-file '--json': looks like an option; write ./FILE for a file starting with '-'" -d x --out_json_file --json
refused "ibpost: run: -R/--rdma-cm: no netdev found for nosuch0 port 1 (its GID table lists none), so no address to connect the loopback pair through rdma_cm; give --cm ADDR, or leave -R out (the pair connects directly)" -d nosuch0 -R
refused "ibpost: run: perftest's -c (--connection): ibpost has none: RC only" -d x -c RC
refused "ibpost: run: perftest's -m (--mtu): ibpost has none: the port's active MTU is used" -d x -m 1024
refused "ibpost: run: perftest's -e (--events): ibpost has none: the module reaps completions itself" -d x -e
refused "ibpost: run: perftest's --perform_warm_up: use --warmup N" -d x --perform_warm_up
refused "ibpost: run: --forever runs until a signal: give it, --iters or --duration" -d x --run_infinitely -n 10
refused "ibpost: run: --forever runs until a signal: give it, --iters or --duration" -d x --forever -D 2
refused "ibpost: run: --forever runs one size and SGE count (no --all-sizes, one --sge value)" -d x --forever -a
refused "ibpost: run: --forever runs one size and SGE count (no --all-sizes, one --sge value)" -d x --forever --sge 1,2
refused "ibpost: run: --report-every with --json: one size and SGE count (the progress objects are lines before the result's object)" -d x --report-every 1 --json -a
refused "ibpost: run: bad --report-every '0': expected seconds above 0" -d x --report-every 0
refused "ibpost: run: bad --duration '4294967.295': too large: at most 4294967294 milliseconds" -d x -D 4294967.295
refused "ibpost: run: bad --duration '0': expected seconds above 0, below 4294967 (--forever runs until a signal)" -d x -D 0
refused "ibpost: run: bad --op '4': expected send, send_imm, write, write_imm or read (perftest's -o, outstanding reads, is -t/--depth here)" -d x -o 4
refused "ibpost: run: bad --port '18515': RDMA device ports are 1 to 255 (-i, perftest --ib-port); the rdma_cm port of --connect is -p/--cm-port (perftest's -p/--port)" -d x --port 18515
refused "ibpost: run: unknown option '-9'" -d x -9
refused "ibpost: run: unknown option '--frobnicate'" -d x --frobnicate
refused "ibpost: run: -t needs a value" -d x -t
refused "ibpost: run: -p/--cm-port is the port of --connect HOST (the loopback pair needs none)" -d x -p 7000
refused "ibpost: run: --connect names port 7001, -p/--cm-port 7000" -d x -p 7000 --connect 192.0.2.1:7001
refused "ibpost: run: give --inline (every WR) or --inline-size N, not both" -d x --inline -I 64
refused "ibpost: run: --csv prints neither JSON nor histograms: give --csv, --json or --hist" -d x --csv --json
refused "ibpost: run: unexpected argument 'a'" -d x a b
refused "ibpost: run: bad --connect '4096': not an IPv4 address (want HOST[:PORT], [IPV6][:PORT] or IPV6)" -d x 4096
refused "ibpost: run: bad --connect '10.1.2:7000': not an IPv4 address (want HOST[:PORT], [IPV6][:PORT] or IPV6)" -d x --connect 10.1.2:7000

# --- times: suffixes everywhere, a bare number in the option's unit ------------------
# One parser (opt_time() in tools/ibpost/opt.c) for every time option; the
# values through --print-options of run, serve and blk map (the line
# map_device would get), the refusals' exact words.  serve's and blk map's
# refusals carry --print-options too: were one not refused, the row fails
# without serving or loading a module.
has "run times: bare numbers as before" "-D 2 --report-every 0.5 --connect 192.0.2.1 --cm-timeout 700 --max-lat-p50 2.5 --max-lat-p99 900" \
	duration_ms=2000 report_ms=500 cm_timeout_ms=700 max_lat_p50_us=2.5 max_lat_p99_us=900
has "run times: ms, s, m, ns and a fraction" "-D 2m --report-every 250ms --connect 192.0.2.1 --cm-timeout 1.5s --max-lat-p50 900ns --max-lat-p99 1.5ms" \
	duration_ms=120000 report_ms=250 cm_timeout_ms=1500 max_lat_p50_us=0.9 max_lat_p99_us=1500
has "run times: h, us" "-D 1h --report-every 2000000us" duration_ms=3600000 report_ms=2000
refused "ibpost: run: bad --duration '1.5x': not a time$TF seconds)" -d x -D 1.5x
refused "ibpost: run: bad --duration '.5': not a time$TF seconds)" -d x -D .5
refused "ibpost: run: bad --report-every '1e3': not a time$TF seconds)" -d x --report-every 1e3
refused "ibpost: run: bad --cm-timeout '1500us': not a whole number of milliseconds$TF milliseconds)" -d x --connect 192.0.2.1 --cm-timeout 1500us
refused "ibpost: run: bad --duration '0.0005': not a whole number of milliseconds$TF seconds)" -d x -D 0.0005
refused "ibpost: run: bad --duration '99999999999999999999': too large: at most 4294967294 milliseconds" -d x -D 99999999999999999999
refused "ibpost: run: bad --duration '5124096h': too large: at most 4294967294 milliseconds" -d x -D 5124096h
refused "ibpost: run: bad --cm-timeout '11m': too large: at most 600000 milliseconds" -d x --connect 192.0.2.1 --cm-timeout 11m
CMD=serve BASE=()
has "serve times: bare numbers as before" "--idle 3000 --max-job-time 8000 --max-keep 30" \
	idle_ms=3000 max_job_ms=8000 keep_s=30
has "serve times: suffixes" "--idle 2.5s --max-job-time 2m --keep 1h" \
	idle_ms=2500 max_job_ms=120000 keep_s=3600
has "serve --max-keep 0: none kept" "--max-keep 0" keep_s=0
refused "ibpost: serve: bad --idle 'soon': not a time$TF milliseconds)" --idle soon --print-options
refused "ibpost: serve: bad --idle '1.5': not a whole number of milliseconds$TF milliseconds)" --idle 1.5 --print-options
refused "ibpost: serve: bad --max-keep '1500ms': not a whole number of seconds$TF seconds)" --max-keep 1500ms --print-options
refused "ibpost: serve: bad --max-keep '2h': too large: at most 3600 seconds" --keep 2h --print-options
refused "ibpost: serve: bad --max-job-time '1194h': too large: at most 4294967295 milliseconds" --max-job-time 1194h --print-options
CMD="blk map" BASE=(-d rxe0 -s 1M)
has "blk map times: bare numbers as before, -1 for ever" \
	"--io-timeout 30 --reconnect-delay 10 -L -1 --fast-io-fail-tmo 0" \
	io_timeout=30 reconnect_delay=10 ctrl_loss_tmo=-1 fast_io_fail_tmo=0
has "blk map times: suffixes to seconds" \
	"--io-timeout 10m --reconnect-delay 1.5m -L 168h --fast-io-fail-tmo 2000ms" \
	io_timeout=600 reconnect_delay=90 ctrl_loss_tmo=604800 fast_io_fail_tmo=2
refused "ibpost: blk map: bad --io-timeout '1500ms': not a whole number of seconds$TF seconds)" -d x -s 1M --io-timeout 1500ms --print-options
refused "ibpost: blk map: bad --ctrl-loss-tmo '-1s': not a time$TF seconds)" -d x -s 1M -L -1s --print-options
refused "ibpost: blk map: bad --io-timeout '-1': not a time$TF seconds)" -d x -s 1M --io-timeout -1 --print-options
refused "ibpost: blk map: bad --reconnect-delay '2147483648': too large: at most 2147483647 seconds" -d x -s 1M --reconnect-delay 2147483648 --print-options
# one letter, one meaning: -t and -i as run's; the old letters say where
has "blk map -t is the depth and -i the RDMA port, as in run" "-t 32 -i 2" depth=32 port=2
refused "ibpost: blk map: unknown option '-D': the depth is -t, --depth (-D is run's --duration)" -d x -s 1M -D 8 --print-options
refused "ibpost: blk map: unknown option '-p': the RDMA port is -i, --port (-p is a TCP port: run's --cm-port, serve's --port)" -d x -s 1M -p 1 --print-options
refused "ibpost: blk map: unknown option '-R': --reconnect-delay has no letter (-R is run's --rdma-cm)" -d x -s 1M -R 5 --print-options
refused "ibpost: blk map: unknown option '-F': --fast-io-fail-tmo has no letter (-F is run's --CPU-freq)" -d x -s 1M -F 0 --print-options
# a config line: its values checked as the kernel would, converted first
printf -- '--dev r --serial a --size 1M --io-timeout 10m\n--dev r --serial b --size 1M --io-timeout 11m\n' >"$T/blk.conf"
out=$("$IBPOST" blk map --check-config --config "$T/blk.conf" 2>&1)
rc=$?
if [[ $rc == 2 && $out == "ibpost: $T/blk.conf:2: --io-timeout 11m (660): 1 to 600 (the kernel refuses it)"* ]]; then
	t_ok "blk map --check-config: --io-timeout 10m passes, 11m is 660 s: refused with the limits"
else
	t_fail "blk map --check-config: --io-timeout 10m passes, 11m is 660 s: refused with the limits" "exit $rc: $out"
fi
CMD=run BASE=(-d rxe_t0)

# --- sizes: K, M, G, T everywhere, a bare number in the option's unit -------------
# One parser (opt_size() in tools/ibpost/opt.c) for every size option.
SF=" (a number with K, M, G or T, 1024-based: 4K, 64M, 1G, 1T; a bare number is"
has "run sizes: G, lower-case k" "-s 1G --inline-size 2k" size=1073741824 inline_size=2048
has "run sizes: bare bytes as before, 0x" "-s 4096 -I 0x100" size=4096 inline_size=256
has "run --sge-layout LEN@OFF: K" "--sge-layout 1K@0,2K@4K" sge_layout=1024@0,2048@4096
refused "ibpost: run: bad --size '4G': too large: at most 4294967295 bytes" -d x -s 4G
refused "ibpost: run: bad --size '99999999999999999999': too large: at most 4294967295 bytes" -d x -s 99999999999999999999
refused "ibpost: run: bad --size '12x': not a size$SF bytes)" -d x -s 12x
refused "ibpost: run: bad --inline-size '1.5K': not a size$SF bytes)" -d x -I 1.5K
refused "ibpost: run: bad --sge-layout '1P': not a size$SF bytes)" -d x --sge-layout 1P@0
CMD=serve BASE=()
has "serve --max-mem: bare MiB as before" "--max-mem 100" max_mem_mib=100
has "serve --max-mem: G in MiB" "--max-mem 2G" max_mem_mib=2048
refused "ibpost: serve: bad --max-mem '512K': not a whole number of MiB$SF MiB)" --max-mem 512K --print-options
refused "ibpost: serve: bad --max-mem '4096T': too large: at most 4294967295 MiB" --max-mem 4096T --print-options
CMD="blk map" BASE=(-d rxe0)
has "blk map --size: T, to the kernel in bytes" "-s 1T" size=1099511627776
has "blk map --size: 0x, as the kernel read it" "-s 0x1000" size=4096
has "blk map --size: lower-case m" "-s 2m" size=2097152
refused "ibpost: blk map: bad --size '1P': not a size$SF bytes)" -d x -s 1P --print-options
refused "ibpost: blk map: bad --size '16777216T': too large: at most 18446744073709551615 bytes" -d x -s 16777216T --print-options
CMD=run BASE=(-d rxe_t0)

# --- human units (ibpost devices' max_mr_size) -----------------------------------------
want='0: 0 B
1023: 1023 B
1024: 1 KiB
1536: 1.5 KiB
1048575: 1 MiB
4294967296: 4 GiB
123456789: 118 MiB
1099511627776: 1 TiB
18446744073709551615: 16 EiB'
mapfile -t nums < <(cut -d: -f1 <<<"$want")
got=$(tools/tests/units_test "${nums[@]}" 2>&1)
if [[ $got == "$want" ]]; then
	t_ok "human units: 2^64-1 is 16 EiB, 4 GiB, 1.5 KiB, 118 MiB, rounding up to the next unit"
else
	t_fail "human units: 2^64-1 is 16 EiB, 4 GiB, 1.5 KiB, 118 MiB, rounding up to the next unit" "$(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"
fi

# --- the JSON writer (every --json output) -----------------------------------------
# json_test json: strings needing escapes, bytes that are not UTF-8,
# u64/i64 limits, NaN and infinities, nesting; python3 must parse it and
# read the values back exactly.
got=$(tools/tests/json_test json 2>&1)
why=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))
want = {"quote": "a\"b\\c/d", "control": "\x01\t\n\r\x1f\x7f",
	"utf8": "gr\u00fc\u00df \u20ac \U0001f600",
	"bytes": "a\ufffdb\ufffdc\ufffd\ufffdd\ufffd\ufffd\ufffde\ufffd",
	"empty": "", "key \"with\" quotes": "v", "u64_max": 2**64 - 1,
	"zero": 0, "i64_min": -2**63, "pi": 3.1416, "nan": None,
	"inf": None, "ninf": None, "yes": True, "no": False,
	"nothing": None, "str_null": None, "empty_arr": [], "empty_obj": {},
	"lines": [{"i": i, "nested": [[i, None]]} for i in range(3)]}
bad = [k for k in want if k not in d or d[k] != want[k] or type(d[k]) != type(want[k])]
bad += [k for k in d if k not in want]
print(" ".join(bad))' <<<"$got" 2>&1)
if [[ -z $why ]]; then
	t_ok "JSON writer: escapes, UTF-8 kept, other bytes U+FFFD, u64 exact, NaN/inf null, nesting: parses and reads back"
else
	t_fail "JSON writer: escapes, UTF-8 kept, other bytes U+FFFD, u64 exact, NaN/inf null, nesting: parses and reads back" "$why: $got"
fi

# --- the text tables: 100 columns by default, every column with --wide ------------
# table_test (tools/tests/table_test.c) feeds devtable.c and runprint.c
# sample records (long names, an IPv6 peer, -q, every lacking capability,
# large counts) and checks each line's width and the columns of each form.
for c in devices run run-gbits progress progress-gbits progress-wide progress-wide-gbits serve; do
	got=$(tools/tests/table_test "$c" 2>&1)
	rc=$?
	n=$(grep -c '^ok: ' <<<"$got")
	if [[ $rc == 0 ]] && ((n > 0)) && ! grep -q '^FAIL' <<<"$got"; then
		t_ok "tables, $c: $(grep '^ok: ' <<<"$got" | sed 's/^ok: //' | paste -sd';' | sed 's/;/; /g')"
	else
		t_fail "tables, $c" "exit $rc: $(grep -v '^ok: ' <<<"$got" | head -n 12 | tr '\n' '|')"
	fi
done

# --- the HOST[:PORT] parser (run --connect, run HOST, blk map --connect) ------------
# INPUT|WHAT: the address and port parsed, or the reason of the refusal
cases=("1.2.3.4|v4 1.2.3.4 0" "1.2.3.4:80|v4 1.2.3.4 80" "[::1]:7000|v6 ::1 7000"
	"::1|v6 ::1 0" "[::1]|v6 ::1 0" "fe80::1:80|v6 fe80::1:80 0"
	"localhost:9|v4 127.0.0.1 9" "1.2.3.4:65535|v4 1.2.3.4 65535"
	"1.2.3.4:0|the port must be 1 to 65535" "1.2.3.4:65536|the port must be 1 to 65535"
	"[::1]:99999999999999999999|the port is not a number"
	"1.2.3.4:|no port after ':'" "1.2.3.4:x1|the port is not a number"
	":80|no host before ':'" "[::1|no ']' after the IPv6 address"
	"[::1]x|only ':PORT' may follow ']'" "[1.2.3.4]:5|not an IPv6 address between [ and ]"
	"1.2.3|not an IPv4 address" "a:b:c|not an IPv6 address (with a port, write [ADDR]:PORT)")
hosts=() want=
for c in "${cases[@]}"; do
	hosts+=("${c%%|*}")
	want+="${want:+$'\n'}${c%%|*}: ${c#*|}"
done
got=$(tools/tests/json_test host "${hosts[@]}" 2>&1)
if [[ $got == "$want" ]]; then
	t_ok "HOST[:PORT]: IPv4, [v6]:port, bare v6, a name, the port 1..65535 with the reason"
else
	t_fail "HOST[:PORT]: IPv4, [v6]:port, bare v6, a name, the port 1..65535 with the reason" "$(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"
fi
got=$("$IBPOST" blk map --dev x --size 1M --connect '[::1]:0' 2>&1)
rc=$?
if [[ $rc == 2 && $got == "ibpost: blk map: --connect [::1]:0: the port must be 1 to 65535 (want HOST[:PORT], [IPV6][:PORT] or IPV6)"$'\n'"try 'ibpost blk map --help'" ]]; then
	t_ok "blk map --connect: the same parser, refused before the kernel (exit 2)"
else
	t_fail "blk map --connect: the same parser, refused before the kernel (exit 2)" "rc $rc: $got"
fi

# --- one option table per command: --help and getopt from it ------------------------
# One letter, one meaning (issue 46): across every command's table
# (--list-options), a letter names one option, by the same long name, or
# by the command's own word for the same thing: run's --qps and blk map's
# --queues (QPs, one each), run's --cm-port and serve's --port (the TCP
# port of rdma_cm).
same_word() { # same_word A B: the same option, or the same thing
	[[ $1 == "$2" ]] && return
	case " $1 $2 " in
	" --qps --queues " | " --queues --qps ") return 0 ;;
	" --cm-port --port " | " --port --cm-port ") return 0 ;;
	esac
	return 1
}
declare -A letter_of=() letter_cmd=()
clash=''
for c in devices run serve "blk map" "blk unmap" "blk list"; do
	# shellcheck disable=SC2086 # "blk map" is two words
	while IFS=$'\t' read -r name letter kind; do
		[[ $kind == option && $letter == -? ]] || continue
		[[ $name == --help ]] && continue
		if [[ -z ${letter_of[$letter]:-} ]]; then
			letter_of[$letter]=$name
			letter_cmd[$letter]=$c
		elif [[ ${letter_cmd[$letter]} != "$c" ]] &&
			! same_word "${letter_of[$letter]}" "$name"; then
			clash+=" $letter: ${letter_cmd[$letter]} ${letter_of[$letter]}, $c $name;"
		fi
	done < <("$IBPOST" $c --list-options 2>/dev/null)
done
if ((${#letter_of[@]} > 10)) && [[ -z $clash ]]; then
	t_ok "one letter, one meaning: ${#letter_of[@]} letters across devices, run, serve and blk"
else
	t_fail "one letter, one meaning across the commands" "${clash:-only ${#letter_of[@]} letters read}"
fi

# Every spelling of CMD's table (the hidden --list-options prints it,
# "--NAME<tab>-L<tab>option|alias|hidden"): an option has its line
# "-L, --NAME" / "--NAME" in --help and its place in the synopsis, an alias
# its "also --NAME" line, a hidden one is in neither; an unknown option
# exits 2 with the usage and the pointer to --help.
helpcheck() {
	local cmd=$1 list help syn name letter kind miss='' n=0
	# shellcheck disable=SC2086
	list=$("$IBPOST" $cmd --list-options 2>&1)
	# shellcheck disable=SC2086
	help=$("$IBPOST" $cmd --help 2>&1)
	syn=$(sed '/^$/q' <<<"$help")
	while IFS=$'\t' read -r name letter kind; do
		n=$((n + 1))
		case $kind in
		option)
			if [[ $letter != - ]]; then
				grep -qE -- "^  $letter, $name( |\$)" <<<"$help" || miss+=" $letter,$name"
			else
				grep -qE -- "^      $name( |\$)" <<<"$help" || miss+=" $name"
			fi
			[[ $name == --help || $name == --version ]] ||
				grep -qE -- "(\[| )$name(\]| |\$)" <<<"$syn" || miss+=" synopsis:$name"
			;;
		alias) grep -qE -- " also $name( |\$)" <<<"$help" || miss+=" alias:$name" ;;
		hidden) grep -qE -- "$name( |\]|\$)" <<<"$help" && miss+=" hidden:$name" ;;
		*) miss+=" bad-row:$name" ;;
		esac
	done <<<"$list"
	if ((n > 0)) && [[ -z $miss ]]; then
		t_ok "$cmd --help: every one of its $n table entries (options, aliases; hidden ones not)"
	else
		t_fail "$cmd --help: every one of its table entries" "$n entries, missing:$miss"
	fi
}
unknown() {
	local cmd=$1 out rc=0
	# shellcheck disable=SC2086
	out=$("$IBPOST" $cmd --no-such-option 2>&1) || rc=$?
	if [[ $rc == 2 ]] && grep -q "^usage: ibpost $cmd " <<<"$out" &&
		grep -Fxq "try 'ibpost $cmd --help'" <<<"$out"; then
		t_ok "$cmd --no-such-option: exit 2 with the usage"
	else
		t_fail "$cmd --no-such-option: exit 2 with the usage" "exit $rc: $(tr '\n' ' ' <<<"$out")"
	fi
}
for c in devices run serve "blk map" "blk unmap" "blk list"; do
	helpcheck "$c"
	unknown "$c"
done
tbl=$("$IBPOST" run --list-options) miss=
for a in ib-dev ib-port tx-depth post_list cq-mod inline_size report_gbits all qp run_infinitely \
	rdma_cm out_json out_json_file cpu_util limit_bw limit_msgrate report-histogrm report-histogram; do
	grep -qx -- "--$a"$'\t-\talias' <<<"$tbl" || miss+=" --$a"
done
[[ $(grep -c $'\thidden$' <<<"$tbl") == 1 ]] || miss+=" hidden:$(grep $'\thidden$' <<<"$tbl" | cut -f1 | tr '\n' ' ')"
grep -qx -- $'--print-options\t-\thidden' <<<"$tbl" || miss+=" --print-options"
if [[ -z $miss ]]; then
	t_ok "run's table: perftest's long spellings are aliases, --print-options the one hidden"
else
	t_fail "run's table: perftest's long spellings are aliases, --print-options the one hidden" "$miss"
fi

# --- every perftest option: taken, or refused with a reason; in the man page's table --
# perftest's option table (src/perftest_parameters.c of perftest 26.04,
# long_options[]), NAME:LETTER ('-': none).  Each is a spelling of run's
# table (--list-options), or 'ibpost run' refuses it (exit 2) with a line
# "perftest's ...: WHY" (not "unknown option"); and each is in the table of
# the man page's PERFTEST OPTIONS section.
PERFTEST_OPTS="port:p ib-dev:d ib-port:i mtu:m size:s iters:n tx-depth:t qp-timeout:u sl:S
gid-index:x all:a CPU-freq:F connection:c qp:q events:e vector:X inline_size:I outs:o mcg:g
comm_rdma_cm:z rdma_cm:R tos:T hop_limit:L help:h MGID:M rx-depth:r bidirectional:b cq-mod:Q
noPeak:N version:V report-cycles:C report-histogrm:H report-unsorted:U atomic_type:A
dualport:O post_list:l duration:D margin:f source_mac:B dest_mac:E dest_ip:J source_ip:j
dest_port:K source_port:k ethertype:Y limit_bw:w limit_msgrate:y server:Z client:P mac_fwd:v
use_rss:G report-counters:W force-link:- remote_mac:- local_mac:- remote_ip:- local_ip:-
remote_port:- local_port:- run_infinitely:- report_gbits:- use-srq:- no_lock:- use-null-mr:-
report-both:- reversed:- pkey_index:- tcp:- burst_size:- typical_pkt_size:- rate_limit:-
rate_limit_type:- rate_units:- output:- cpu_util:- out_json:- out_json_file:- latency_gap:-
flow_label:- retry_count:- dont_xchg_versions:- payload_file_path:- use_cuda:-
use_cuda_bus_id:- use_cuda_dmabuf:- use_cuda_pcie_mapping:- use_data_direct:- cuda_mem_type:-
use_musa:- use_musa_bus_id:- use_musa_dmabuf:- use_musa_pcie_mapping:- use_rocm:-
use_rocm_dmabuf:- use_neuron:- use_neuron_dmabuf:- use_hl:- use_mlu:- use_mlu_dmabuf:-
use_opencl:- opencl_platform_id:- use_ib_dm_dmabuf:- gpu_touch:- mmap:- mmap-offset:- ipv6:-
ipv6-addr:- raw_ipv6:- report-per-port:- odp:- use_hugepages:- use_old_post_send:-
promiscuous:- sniffer:- raw_mcast:- mr_per_qp:- dlid:- tclass:- wait_destroy:- flows:-
flows_burst:- reply_every:- perform_warm_up:- vlan_en:- vlan_pcp:- recv_post_list:- aes_xts:-
encrypt_on_tx:- sig_before:- aes_block_size:- kek_path:- credentials_path:-
data_enc_keys_number:- data_enc_key_app_path:- log_dci_streams:- log_active_dci_streams:-
disable_pcie_relaxed:- use_ooo:- congest_type:-"
tbl=$("$IBPOST" run --list-options)
ptable=$(sed -n '/^\.SH PERFTEST OPTIONS/,/^\.SH /p' Documentation/ibpost.8 | sed 's/\\-/-/g')
# perftest_taken SPELLING: 0 when run takes it, else whether it is refused
# as perftest's; the why in $why
perftest_taken() {
	local w=$1 col out rc=0
	if [[ $w == --* ]]; then col=1; else col=2; fi
	if cut -f"$col" <<<"$tbl" | grep -qxF -- "$w"; then
		why=taken
		return 0
	fi
	out=$("$IBPOST" run -d x "$w" --print-options 2>&1) || rc=$?
	why=$(head -n 1 <<<"$out")
	[[ $rc == 2 && $why == "ibpost: run: perftest's "* ]]
}
taken=0 refusedn=0 bad=''
for p in $PERFTEST_OPTS; do
	for w in "--${p%%:*}" "-${p#*:}"; do
		[[ $w == -- ]] && continue	# no letter
		if perftest_taken "$w"; then
			if [[ $why == taken ]]; then taken=$((taken + 1)); else refusedn=$((refusedn + 1)); fi
		else
			bad+=" $w ($why)"
		fi
		grep -qE -- "(^|[ ,])$w(\$|[ ,;])" <<<"$ptable" || bad+=" $w (not in the man page's table)"
	done
done
if [[ -z $bad ]]; then
	t_ok "every perftest option ($(wc -w <<<"$PERFTEST_OPTS") names, their letters): $taken spellings taken, $refusedn refused with a reason; each in the man page's PERFTEST OPTIONS"
else
	t_fail "every perftest option: taken or refused with a reason, in the man page's table" "$bad"
fi

# --- the man page's options of each command against its --help ----------------------
# Each command's section of Documentation/ibpost.8 (".SS run" to the next
# .SS or .SH) lists an option as the tag of a .TP entry, the line after
# it; --help lists it on a line "  -L, --NAME", "      --NAME" or, an
# alias, "also --NAME" (blk's three share one --help: the block after
# "map:", "unmap:" or "list:").  Every long option of one must be in the
# other; the hidden ones, in neither --help by design, are left out of
# both: MAN_HIDDEN.
MAN=Documentation/ibpost.8
MAN_HIDDEN=(--print-options --list-options)
help_longopts() { # help_longopts CMD: its long options, one a line, sorted
	local help
	# shellcheck disable=SC2086 # "blk map" is two words
	help=$("$IBPOST" $1 --help 2>&1)
	[[ $1 == "blk "* ]] && help=$(sed -n "/^${1#blk }:\$/,/^\$/p" <<<"$help")
	grep -oE -- '^(  -[[:alnum:]], |      | +also )--[[:alnum:]_-]+' <<<"$help" |
		grep -oE -- '--[[:alnum:]_-]+$' | sort -u
}
man_longopts() { # man_longopts CMD: the long options of its section's .TP tags
	awk -v sec=".SS $1" '
		$0 == sec { on = 1; next }
		on && /^\.S[SH]( |$)/ { exit }
		on && tag { print; tag = 0 }
		on && $0 == ".TP" { tag = 1 }' "$MAN" |
		sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' |
		grep -oE -- '--[[:alnum:]_-]+' | sort -u
}
for c in devices run serve "blk map" "blk unmap" "blk list"; do
	h=$(help_longopts "$c" | grep -vxF -f <(printf '%s\n' "${MAN_HIDDEN[@]}"))
	m=$(man_longopts "$c" | grep -vxF -f <(printf '%s\n' "${MAN_HIDDEN[@]}"))
	only_h=$(comm -23 <(echo "$h") <(echo "$m") | paste -sd' ')
	only_m=$(comm -13 <(echo "$h") <(echo "$m") | paste -sd' ')
	if [[ -n $h && -z $only_h && -z $only_m ]]; then
		t_ok "man page's $c section: the $(wc -l <<<"$h") long options of '$c --help' (${MAN_HIDDEN[*]} aside)"
	else
		t_fail "man page's $c section: the long options of '$c --help'" "not in the man page:${only_h:+ $only_h}; not in --help:${only_m:+ $only_m}"
	fi
done

# --- bash completion after an option that takes no value ---------------------
# tools/ibpost/ibpost.bash in a bash of its own (install.sh checks its
# option lists): run's -R and -F take none (the options are offered after
# them); --keep takes a time in serve, none in blk unmap (its options
# and the mapped devices follow).
comp_words() { # comp_words WORD...: what completing the last WORD offers
	bash --norc --noprofile -c '. tools/ibpost/ibpost.bash
		COMP_WORDS=(ibpost "$@"); COMP_CWORD=$#; _ibpost
		printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
for o in -F -R; do
	got=$(comp_words run "$o" --c | sort | paste -sd' ')
	if [[ $got == *--connect* && $got == *--csv* ]]; then
		t_ok "completion: 'run $o --c' offers run's options ($got)"
	else
		t_fail "completion: 'run $o --c' offers run's options" "run: '$got'"
	fi
done
got=$(comp_words blk unmap --keep --f | paste -sd' ')
got_serve=$(comp_words serve --keep "" | paste -sd' ')
if [[ $got == --force && -z $got_serve ]]; then
	t_ok "completion: 'blk unmap --keep --f' offers --force, 'serve --keep' a time of the user's"
else
	t_fail "completion: 'blk unmap --keep --f' offers --force, 'serve --keep' nothing" "blk unmap: '$got'; serve: '$got_serve'"
fi

# --- --dev left out: picked from sysfs -------------------------------------------
# mkdev ROOT DEV STATE [NETDEV]: port 1 in STATE, NETDEV at GID index 0.
mkdev() {
	local p=$1/$2/ports/1
	mkdir -p "$p/gid_attrs/ndevs"
	echo "$3" >"$p/state"
	[[ -n ${4:-} ]] && echo "$4" >"$p/gid_attrs/ndevs/0"
	return 0
}
# picked NAME WANT_DEV WANT_WHY ROOT ARGS...
picked() {
	local name=$1 dev=$2 why=$3 root=$4 out
	shift 4
	out=$(IBPOST_SYSFS_IB=$root "$IBPOST" run "$@" --print-options 2>&1)
	if grep -qx "dev=$dev" <<<"$out" && grep -qx "dev_why=$why" <<<"$out"; then
		t_ok "no --dev: $name: $dev"
	else
		t_fail "no --dev: $name: $dev" "$(head -n 2 <<<"$out" | tr '\n' ' ')"
	fi
}
mkdev "$T/a" aa_down "1: DOWN" lo
mkdev "$T/a" bb_up "4: ACTIVE" lo
mkdev "$T/a" cc_up "4: ACTIVE" nosuch0
picked "the first ACTIVE device by name" bb_up "the first RDMA device with an ACTIVE port" "$T/a"
picked "--connect 127.0.0.1: the device on lo" bb_up "the route to 127.0.0.1 leaves from lo" "$T/a" --connect 127.0.0.1
picked "--cm 127.0.0.1: the device on lo" bb_up "the route to 127.0.0.1 leaves from lo" "$T/a" --cm 127.0.0.1
picked "perftest's HOST: the device on lo" bb_up "the route to 127.0.0.1 leaves from lo" "$T/a" localhost
mkdev "$T/b" aa_down "1: DOWN"
IBPOST_SYSFS_IB=$T/b refused "ibpost: run: no --dev given and no RDMA device has an ACTIVE port (1 under $T/b); see 'ibpost devices'" --iters 10
IBPOST_SYSFS_IB=$T/b refused "ibpost: run: no --dev given and no RDMA device has a GID on lo (the route to 127.0.0.1 leaves from it); give --dev, or add one: rdma link add rxe_lo type rxe netdev lo" --connect 127.0.0.1
# -R with --cm-timeout passes the options (rdma_cm's bound) and finds no
# address on cc_up's netdev
IBPOST_SYSFS_IB=$T/a refused "ibpost: run: -R/--rdma-cm: nosuch0 (the netdev of cc_up port 1) has no IPv4 or global IPv6 address for rdma_cm; add one, or leave -R out (the pair connects directly)" -d cc_up -R --cm-timeout 700
IBPOST_SYSFS_IB=$T/a refused "ibpost: run: -R/--rdma-cm: bb_up port 1 is on lo: rdma_cm binds a loopback address to no RDMA device, so it cannot connect the pair there; leave -R out: the loopback pair connects directly" -R
mkdev "$T/c" rxe_one "4: ACTIVE" lo
mkdev "$T/c" rxe_two "4: ACTIVE" lo
IBPOST_SYSFS_IB=$T/c refused "ibpost: run: no --dev given and lo (the route to 127.0.0.1) is under more than one ACTIVE RDMA device: rxe_one and rxe_two; give --dev" --connect 127.0.0.1

# --- serve's notification of systemd (ibpost-serve.service, Type=notify) -----------
# notify_test binds AF_UNIX datagram sockets and points $NOTIFY_SOCKET at
# them: the tool's notify_send() (READY=1 once listening, STOPPING=1)
# reaches a path and an abstract ('@') name, sends nothing without the
# variable, refuses a relative name, says when nobody listens.
want="path: received 'READY=1'
abstract: received 'STOPPING=1'
unset: 0
relative: Invalid argument
unbound: No such file or directory"
got=$(tools/tests/notify_test "$T" 2>&1)
if [[ $got == "$want" ]]; then
	t_ok "serve's \$NOTIFY_SOCKET datagrams: a path and an abstract name receive READY=1 and STOPPING=1; unset: nothing; relative: EINVAL; unbound: ENOENT"
else
	t_fail "serve's \$NOTIFY_SOCKET datagrams" "$(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"
fi

t_done
