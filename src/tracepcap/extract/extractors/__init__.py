"""One module per fact family; the pipeline discovers every Extractor subclass here."""
