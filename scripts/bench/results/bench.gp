$d0_0 << EOD
1 0.301 0.078
20 1.015 0.513
100 4.345 2.638
EOD
$d0_1 << EOD
1 0.437 0.078
20 2.079 0.552
100 10.395 2.584
EOD
$d0_2 << EOD
1 0.307 0.063
20 1.212 0.315
100 5.362 1.589
EOD
$d0_3 << EOD
1 0.458 0.054
20 1.853 2.172
100 10.395 18.612
EOD
$d1_0 << EOD
20 0.345 0.185
100 0.588 0.733
EOD
$d1_1 << EOD
20 0.512 0.205
100 2.713 0.678
EOD
$d1_2 << EOD
20 0.347 0.152
100 0.785 0.485
EOD
$d1_3 << EOD
20 0.558 2.116
100 2.998 18.267
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
