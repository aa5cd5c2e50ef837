$d0_0 << EOD
1 0.389 0.193
20 1.190 0.518
100 5.180 2.779
EOD
$d0_1 << EOD
1 0.847 0.181
20 2.402 0.609
100 11.555 2.946
EOD
$d0_2 << EOD
1 0.592 0.112
20 1.459 0.362
100 6.234 1.837
EOD
$d0_3 << EOD
1 1.110 0.129
20 2.273 2.200
100 13.029 18.706
EOD
$d1_0 << EOD
20 0.391 0.189
100 0.674 0.768
EOD
$d1_1 << EOD
20 0.530 0.204
100 2.708 0.800
EOD
$d1_2 << EOD
20 0.385 0.152
100 0.847 0.692
EOD
$d1_3 << EOD
20 0.600 2.104
100 3.099 18.389
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
