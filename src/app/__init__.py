"""The verbs: one module per verb, each taking its typed request (a frozen dataclass) and returning an
Answer (`requests`: the document, the text, the exit code); `loading` reads and validates the input; the
*_render modules and render* hold what the verbs print."""
