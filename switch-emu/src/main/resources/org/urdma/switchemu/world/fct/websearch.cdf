# Web search flow sizes (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010), as the HPCC paper uses them:
# the points of traffic_gen/WebSearch_distribution.txt of github.com/alibaba-edu/High-Precision-Congestion-Control.
# Each line: flow size in bytes, cumulative percentage of flows.
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
