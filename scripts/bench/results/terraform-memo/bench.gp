$d0_0 << EOD
1 0.344 0.091
20 0.750 0.598
100 2.312 2.391
EOD
$d0_1 << EOD
1 0.478 0.101
20 1.350 0.617
100 6.333 2.604
EOD
$d0_2 << EOD
1 0.316 0.066
20 0.868 0.393
100 3.147 1.456
EOD
$d0_3 << EOD
1 0.444 0.063
20 1.450 2.213
100 7.186 18.564
EOD
$d1_0 << EOD
20 0.316 0.194
100 0.505 0.616
EOD
$d1_1 << EOD
20 0.466 0.222
100 2.615 0.822
EOD
$d1_2 << EOD
20 0.361 0.173
100 0.760 0.625
EOD
$d1_3 << EOD
20 0.587 2.139
100 2.879 18.402
EOD
set terminal pngcairo size 1240,560 noenhanced font 'sans,10'
set output "/work/main/scripts/bench/results/terraform-memo/bench.png"
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
