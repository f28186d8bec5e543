"""PodTopologySpread: spread a pod's replicas across topology domains (pkg/scheduler/framework/plugins/
podtopologyspread). Hard constraints (DoNotSchedule) filter nodes, soft ones (ScheduleAnyway) score them;
pods without constraints of their own get the configured default constraints."""
