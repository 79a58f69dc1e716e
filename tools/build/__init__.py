"""What is generated from one source: notebook chrome and the series table (series, notebook_chrome), stored outputs, slides, the lecturer's answers."""
