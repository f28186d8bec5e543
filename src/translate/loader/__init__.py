"""Reading objects from files, directories and stdin, as `kubectl apply -f` does (`loading`)."""

from .loading import load, load_text, remade

__all__ = ["load", "load_text", "remade"]
