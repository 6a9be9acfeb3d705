/* PLACEHOLDER: the runner protocol lands with the runner. */
