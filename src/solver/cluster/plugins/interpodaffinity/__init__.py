"""InterPodAffinity: required pod affinity / anti-affinity as a filter, preferred terms as a score.

`filtering` holds PreFilter / Filter and the PreFilter extensions, `scoring` PreScore / Score /
NormalizeScore, `plugin` the plugin that wires them to the framework.
"""
