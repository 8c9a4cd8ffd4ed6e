"""Every table and SQL statement, the engine set-up and the migration helpers. Only this package imports SQLAlchemy."""
