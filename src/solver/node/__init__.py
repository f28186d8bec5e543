"""The node side: what the kubelet's resource managers decide when a pod is admitted.

`problem` holds the facts (machine topology, kubelet policy, checkpointed state, pods), built by
`kubefit.translate.node`; `engines` names the node engines; `solution` holds their answer (one
Admission per pod, and the state the managers are left in); `render` turns it into the Admission
objects and checkpoint files.
"""
