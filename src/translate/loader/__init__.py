"""Reading objects from files, directories and stdin, as `kubectl apply -f` does: the files and the
child's documents (`loading`), the objects of each document (`objects_of`), each checked against its
kind's model (`schema`, `schema_messages`)."""

from .loading import load, load_text
from .objects_of import remade

__all__ = ["load", "load_text", "remade"]
