"""One screen per section of the app, plus its modals."""
