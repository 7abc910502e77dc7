# Creates the baseline's database (DRF_BENCH_DB) with the bench's catalog and an API token:
#   python3 seed.py KEY BRANDS CATEGORIES SKUS
import os
import sys

os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'settings')
import django  # noqa: E402

django.setup()
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402
from shelf.models import Brand, Category, Sku  # noqa: E402

key, n_brands, n_categories, n_skus = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
call_command('migrate', run_syncdb=True, verbosity=0)
with transaction.atomic():
    user = User.objects.create(username='bench')
    Token.objects.create(key=key[:40], user=user)
    Brand.objects.bulk_create([Brand(id=f'brand-{i}', name=f'Brand {i}') for i in range(n_brands)])
    Category.objects.bulk_create([Category(id=f'cat-{i}', name=f'Category {i}') for i in range(n_categories)])
    Sku.objects.bulk_create([
        Sku(id=f'sku-{i:05d}', cid=f'C{i}', ean13=str(4000000000000 + i), name=f'Product {i} 0.5 l',
            brand_id=f'brand-{i % n_brands}', category_id=f'cat-{i % n_categories}',
            size_x_mm=65, size_y_mm=205, size_z_mm=65, attributes={'package': 'pet'})
        for i in range(n_skus)
    ], batch_size=500)
print('seeded')
