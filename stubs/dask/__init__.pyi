# Hand-written: dask ships `py.typed`, but `dask.bag.read_text` and `Bag` are untyped; this
# stub package covers what message_ir.datasets.dask and its test use (see stubs/README.md).
