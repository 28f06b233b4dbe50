redis-server --bind 127.0.0.1 --port 6379 --save '' --appendonly no --daemonize yes --dir "$TMPDIR" --logfile "$TMPDIR/redis.log" >/dev/null || exit 1
i=0
while [ $i -lt 100 ] && ! redis-cli -p 6379 ping >/dev/null 2>&1; do i=$((i+1)); sleep 0.05; done
exec "$@"
