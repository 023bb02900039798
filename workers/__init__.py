"""Celery workers for arena: the app (:mod:`workers.celery`) and its thin tasks
(:mod:`workers.tasks`). Start one with ``arena worker`` or
``celery -A workers.celery worker -l info``."""
