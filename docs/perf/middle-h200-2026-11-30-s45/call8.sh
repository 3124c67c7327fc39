# s45 call 8: plan creation (bench-host, 1000 random problems, one seed drawn here) with main
# (f2db96a) and this build (the hashed count), three rounds alternating; quick with this build.
cd .carry && for f in xpose-head xpose-new; do xz -d -k -f $f.xz; chmod +x $f; done
D=$OUT/c8; mkdir -p $D
P=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo "bench-host $P" > $D/seed.txt
for r in 1 2 3; do for b in head new; do
  ./xpose-$b bench-host --problems 1000 --seed $P > $D/host-$b-r$r.txt 2>&1
done; done
grep -h "plan creation" $D/host-*.txt
./xpose-new bench quick > $D/quick-new.txt 2>&1; tail -3 $D/quick-new.txt
cd $OUT && tar czf c8.tgz c8
