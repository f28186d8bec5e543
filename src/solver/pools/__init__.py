"""What is left in each resource pool, solved exactly: per partition type how many more devices can be
allocated at the same time (allocatable), the partition types (partitions), shareable capacity
(shareable) and the status a ResourcePoolStatusRequest reports (status). `app.pools` is the verb."""
