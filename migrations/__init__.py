"""Alembic migrations, shipped inside the package so an installed bot can upgrade its database."""
