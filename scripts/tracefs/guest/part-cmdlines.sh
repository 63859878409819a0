# saved_cmdlines
cap saved_cmdlines 'echo 1 > events/sched/sched_switch/enable; sleep 0.1; echo 0 > events/sched/sched_switch/enable; head -5 saved_cmdlines; cat saved_cmdlines_size'
reset_all
