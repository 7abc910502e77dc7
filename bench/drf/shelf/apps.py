from django.apps import AppConfig
from django.db.backends.signals import connection_created


def _wal(sender, connection, **kwargs):
    # The same SQLite settings as the Node server (storage/dialect.ts): two gunicorn workers write to
    # one file, which without WAL and a busy timeout fails with "database is locked".
    if connection.vendor == 'sqlite':
        with connection.cursor() as c:
            c.execute('PRAGMA journal_mode = WAL')
            c.execute('PRAGMA synchronous = NORMAL')
            c.execute('PRAGMA busy_timeout = 5000')


class ShelfConfig(AppConfig):
    name = 'shelf'
    default_auto_field = 'django.db.models.AutoField'

    def ready(self):
        connection_created.connect(_wal)
