# Django settings of the DRF baseline (bench/api.bench.mjs): one SQLite file named by DRF_BENCH_DB,
# token authentication and LimitOffsetPagination, as a plain DRF deployment of the same API would have.
import os

BASE_DIR = os.path.dirname(os.path.abspath(__file__))
SECRET_KEY = 'bench-only-not-secret'
DEBUG = False
ALLOWED_HOSTS = ['*']
ROOT_URLCONF = 'urls'
USE_TZ = True
INSTALLED_APPS = [
    'django.contrib.contenttypes',
    'django.contrib.auth',
    'rest_framework',
    'rest_framework.authtoken',
    'shelf',
]
MIDDLEWARE = []
DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': os.environ.get('DRF_BENCH_DB', os.path.join(BASE_DIR, 'bench.sqlite3'))}}
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
REST_FRAMEWORK = {
    'DEFAULT_AUTHENTICATION_CLASSES': ['rest_framework.authentication.TokenAuthentication'],
    'DEFAULT_PERMISSION_CLASSES': ['rest_framework.permissions.IsAuthenticated'],
    'DEFAULT_PAGINATION_CLASS': 'rest_framework.pagination.LimitOffsetPagination',
    'PAGE_SIZE': 100,
    'DEFAULT_RENDERER_CLASSES': ['rest_framework.renderers.JSONRenderer'],
    'DEFAULT_PARSER_CLASSES': ['rest_framework.parsers.JSONParser'],
}
