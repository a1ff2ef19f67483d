# SPDX-License-Identifier: GPL-2.0
# bash completion of ibpost(8): commands, each command's options, the values
# of the options that take a fixed set (--op, --layout), and RDMA device
# names for --dev (from /sys/class/infiniband; IBPOST_IB_CLASS overrides
# that directory, for tests).  Installed by 'make install' as
# $(PREFIX)/share/bash-completion/completions/ibpost; needs no other
# completion package.  tools/tests/host/install.sh checks these lists against
# the tool's option tables.
# shellcheck shell=bash

_ibpost_devices()
{
	local d
	for d in "${IBPOST_IB_CLASS:-/sys/class/infiniband}"/*; do
		[[ -e $d ]] && printf '%s\n' "${d##*/}"
	done
}

# _ibpost_reply WORDS: COMPREPLY, the words that start with $cur (no
# process substitution: it needs /dev/fd).
_ibpost_reply()
{
	local w IFS=$' \t\n'
	w=$(compgen -W "$1" -- "$cur")
	IFS=$'\n'
	# shellcheck disable=SC2206 # one word a line, IFS is a newline
	COMPREPLY=($w)
}

_ibpost()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd='' sub='' words='' i

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			if [[ -z $cmd ]]; then
				cmd=${COMP_WORDS[i]}
			elif [[ $cmd == blk && -z $sub ]]; then
				sub=${COMP_WORDS[i]}
			fi
			;;
		esac
	done

	case $prev in
	--dev | -d | --ib-dev)
		_ibpost_reply "$(_ibpost_devices)"
		return
		;;
	--op | -o)
		[[ $cmd == run ]] && _ibpost_reply 'send send_imm write write_imm read'
		return
		;;
	--config)
		# shellcheck disable=SC2207 # file names, a line each
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--layout | --recv-layout)
		_ibpost_reply 'equal page-cross unaligned random'
		return
		;;
	--port | -p | --size | -s | --sge | --sge-layout | --seed | --recv-sge | \
	--recv-sge-layout | --iters | -n | --duration | -D | --report-every | \
	--warmup | --depth | \
	--batch | --signal-every | --imm | --cm | --connect | --cm-timeout | \
	--qps | -q | --addr | --allow | --max-conns | --idle | --max-mem | \
	--max-job-time | --max-per-addr | --max-keep | --queues | -i | --ib-port | -x | \
	--gid-index | -t | --tx-depth | -l | --post_list | -Q | --cq-mod | -I | \
	--inline-size | --inline_size | --cm-port | --qp | -c | --io-timeout | \
	--serial | -S | --reconnect-delay | --ctrl-loss-tmo | -L | \
	--fast-io-fail-tmo | --min-bw | -w | --limit_bw | --min-mpps | -y | \
	--limit_msgrate | --max-lat-p50 | --max-lat-p99)
		# A value of the user's: nothing to offer.
		COMPREPLY=()
		return
		;;
	--keep)
		# serve's takes a time; blk unmap's none (the names follow)
		if [[ $cmd == serve ]]; then
			COMPREPLY=()
			return
		fi
		;;
	--out-json-file | --out_json_file)
		[[ $cmd == run ]] || return
		local f IFS=$'\n'
		f=$(compgen -f -- "$cur")
		# shellcheck disable=SC2206 # one name a line, IFS is a newline
		COMPREPLY=($f)
		return
		;;
	esac

	case $cmd in
	'')
		words='devices run serve blk help -h --help -V --version'
		;;
	devices)
		words='--json --dev --wide --help -j -d -h'
		;;
	run)
		words='--dev --port --op --size --sge --layout --sge-layout --seed
			--recv-sge --recv-layout --recv-sge-layout --iters --duration
			--forever --report-every --warmup --depth --batch --signal-every --imm --inline
			--inline-size --verify --pingpong --all-sizes --json --csv
			--hist --report-gbits --gid-index --cm --connect --cm-port
			--cm-timeout --qps --version --help
			--ib-dev --ib-port --tx-depth --post_list --cq-mod
			--inline_size --all --qp --report_gbits --CPU-freq
			--run_infinitely --wide --rdma-cm --rdma_cm --bidirectional
			--out-json --out_json --out-json-file --out_json_file
			--cpu-util --cpu_util --min-bw --limit_bw --min-mpps
			--limit_msgrate --max-lat-p50 --max-lat-p99
			--report-histogrm --report-histogram --comm_rdma_cm'
		;;
	serve)
		words='--addr --port --allow --max-conns --idle --max-mem
			--max-job-time --max-per-addr --max-keep --keep --cpu-record --json --wide --config
			--check-config --help'
		;;
	blk)
		case $sub in
		'') words='map unmap list --help' ;;
		map) words='--dev --size --queues --depth --port --connect --io-timeout --serial --read-only --reconnect-delay --ctrl-loss-tmo --fast-io-fail-tmo --config --check-config --help' ;;
		list) words='--json --help' ;;
		unmap)
			# ibpost_blk's disks: those with its attributes.
			local n
			words='--force --keep --config --help'
			for n in /sys/block/*/ibpost; do
				[[ -d $n ]] && n=${n%/ibpost} && words+=" ${n##*/}"
			done
			;;
		esac
		;;
	help)
		words='devices run serve blk'
		;;
	esac
	_ibpost_reply "$words"
}

complete -F _ibpost ibpost
