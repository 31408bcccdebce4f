"""Where a move becomes a view: the refereed session (state, durable record, undo, tokens) and
what each seat may see of it. The web server (:mod:`assistant.server`) only carries this out."""
