"""Fuzzing kubefit's verbs with structurally mutated valid inputs (issue 11, item 4).

Valid fixtures (examples/, the shared scenarios and realworld corpus, tests/data) are parsed,
mutated as YAML trees (hostile numbers, strings, quantities, CPU lists, CEL selectors, wrong types,
deleted, duplicated and swapped fields, list items and objects) and fed to the verbs in-process. The
property: every run ends with exit 0, 1 or 2 within a time bound; an internal error (exit 3) or an
escaping exception or a hang is a finding.

Modules: `seeds` (the fixtures), `choices` (where the random decisions come from: a seeded
`random.Random`, hypothesis, atheris), `values` (hostile values), `mutators` (tree and text mutations),
`arguments` (a verb's command line for a seed), `runner` (one input, one verb, in-process under an
alarm), `corpus` (saved inputs that once found a bug), `campaign` (a long run), `atheris_target`
(coverage-guided, when atheris is installed). How to run them: README.md.
"""
