"""The command line's process: its policy (`process`: garbage collection, what is kept to the end, imports
done while the input is read) and the forked children that read and validate the input beside it
(`forking`, `background_validation`). Only the command line switches it on."""
