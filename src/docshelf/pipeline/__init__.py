"""The indexing pipeline: discover files, parse them into blocks, chunk, embed, store."""
