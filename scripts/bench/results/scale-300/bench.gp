$d0_0 << EOD
300 52.956 17.228
EOD
$d0_1 << EOD
300 159.619 13.269
EOD
$d0_2 << EOD
300 59.389 7.407
EOD
$d0_3 << EOD
300 179.520 61.224
EOD
set terminal pngcairo size 620,560 noenhanced font 'sans,10'
set output "/work/main/scripts/bench/results/scale-300/bench.png"
set multiplot layout 1,1 title 'kubeinfer: median wall time against N (solid: terraform, dashed: kubectl floor)'
set logscale x
set xrange [240:390]
set xtics (300)
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
unset multiplot
