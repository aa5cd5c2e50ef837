$d0_0 << EOD
20 2.123 0.867
EOD
$d0_1 << EOD
20 3.707 0.910
EOD
$d0_2 << EOD
20 2.164 0.534
EOD
$d0_3 << EOD
20 3.463 2.236
EOD
$d1_0 << EOD
20 3.405 0.993
EOD
$d1_1 << EOD
20 7.310 0.940
EOD
$d1_2 << EOD
20 3.047 0.745
EOD
$d1_3 << EOD
20 4.400 2.305
EOD
set terminal pngcairo size 1240,560 noenhanced font 'sans,10'
set output "/work/main/scripts/bench/results/disaggregatedset/bench.png"
set multiplot layout 1,2 title 'kubeinfer: median wall time against N (solid: terraform, dashed: kubectl floor)'
set logscale x
set xrange [16:26]
set xtics (20)
set xlabel 'N objects'
set ylabel 'seconds'
set yrange [0:*]
set offsets 0, 0, graph 0.45, 0
set grid
set key top left
set title 'LWS'
plot \
  $d0_0 using 1:2 with linespoints lw 2 pt 7 lc 1 title 'terraform plan, new objects (no cluster reachable)', \
  $d0_0 using 1:3 with linespoints lw 1 dt 2 pt 6 lc 1 title 'kubectl apply --server-side --dry-run=server', \
  $d0_1 using 1:2 with linespoints lw 2 pt 7 lc 2 title 'terraform apply', \
  $d0_1 using 1:3 with linespoints lw 1 dt 2 pt 6 lc 2 title 'kubectl apply --server-side', \
  $d0_2 using 1:2 with linespoints lw 2 pt 7 lc 3 title 'terraform plan, no change', \
  $d0_2 using 1:3 with linespoints lw 1 dt 2 pt 6 lc 3 title 'kubectl diff --server-side', \
  $d0_3 using 1:2 with linespoints lw 2 pt 7 lc 4 title 'terraform destroy', \
  $d0_3 using 1:3 with linespoints lw 1 dt 2 pt 6 lc 4 title 'kubectl delete --wait'
set title 'DS'
plot \
  $d1_0 using 1:2 with linespoints lw 2 pt 7 lc 1 title 'terraform plan, new objects (no cluster reachable)', \
  $d1_0 using 1:3 with linespoints lw 1 dt 2 pt 6 lc 1 title 'kubectl apply --server-side --dry-run=server', \
  $d1_1 using 1:2 with linespoints lw 2 pt 7 lc 2 title 'terraform apply', \
  $d1_1 using 1:3 with linespoints lw 1 dt 2 pt 6 lc 2 title 'kubectl apply --server-side', \
  $d1_2 using 1:2 with linespoints lw 2 pt 7 lc 3 title 'terraform plan, no change', \
  $d1_2 using 1:3 with linespoints lw 1 dt 2 pt 6 lc 3 title 'kubectl diff --server-side', \
  $d1_3 using 1:2 with linespoints lw 2 pt 7 lc 4 title 'terraform destroy', \
  $d1_3 using 1:3 with linespoints lw 1 dt 2 pt 6 lc 4 title 'kubectl delete --wait'
unset multiplot
