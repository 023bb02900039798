"""Records and file formats, kept apart from the engines: match records (JSON Lines), PBN."""
