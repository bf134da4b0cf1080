B
dyn_odd_zpJ€