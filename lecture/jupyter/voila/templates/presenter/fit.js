/* Fitting a slide to the screen at every stage (see presenter.css): empty until it is needed. */
