$d0_0 << EOD
1 0.440 0.107
20 1.856 0.769
100 5.820 2.563
EOD
$d0_1 << EOD
1 0.735 0.160
20 4.899 0.691
100 18.763 2.542
EOD
$d0_2 << EOD
1 0.542 0.115
20 3.986 0.463
100 13.988 1.602
EOD
$d0_3 << EOD
1 0.823 0.070
20 5.301 2.233
100 18.376 18.662
EOD
$d1_0 << EOD
20 0.376 0.229
100 0.724 0.955
EOD
$d1_1 << EOD
20 0.571 0.248
100 3.063 1.198
EOD
$d1_2 << EOD
20 0.415 0.218
100 1.156 1.077
EOD
$d1_3 << EOD
20 0.672 2.173
100 3.403 18.557
EOD
set terminal pngcairo size 1240,560 noenhanced font 'sans,10'
set output "/work/main/scripts/bench/results/bench.png"
set multiplot layout 1,2 title 'kubeinfer: median wall time against N (solid: terraform, dashed: kubectl floor)'
set logscale x
set xrange [0.8:130]
set xtics (1, 5, 10, 20, 50, 100)
set xlabel 'N objects'
set ylabel 'seconds'
set yrange [0:*]
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
set title 'PLC'
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
