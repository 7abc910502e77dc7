# The baseline's catalog: brands, categories and SKUs with the v1.5 fields, string ids and a rowid
# order (data_id) as the Node server keeps them.
from django.db import models


class Brand(models.Model):
    data_id = models.AutoField(primary_key=True)
    id = models.CharField(max_length=255, unique=True)
    name = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)


class Category(models.Model):
    data_id = models.AutoField(primary_key=True)
    id = models.CharField(max_length=255, unique=True)
    name = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)


class Sku(models.Model):
    data_id = models.AutoField(primary_key=True)
    id = models.CharField(max_length=255, unique=True)
    cid = models.CharField(max_length=255, null=True)
    ean13 = models.CharField(max_length=13, null=True)
    image = models.CharField(max_length=1024, null=True)
    name = models.CharField(max_length=255)
    brand = models.ForeignKey(Brand, null=True, on_delete=models.PROTECT, to_field='id')
    category = models.ForeignKey(Category, null=True, on_delete=models.PROTECT, to_field='id')
    size_x_mm = models.FloatField(null=True)
    size_y_mm = models.FloatField(null=True)
    size_z_mm = models.FloatField(null=True)
    attributes = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
