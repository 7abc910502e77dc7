# DRF viewsets for the three routes the bench loads: /api/v1.5/sku/, /api/v1.5/brands/ (+ by id).
import uuid

from django.urls import include, path
from rest_framework import routers, serializers, viewsets
from shelf.models import Brand, Category, Sku


class BrandSerializer(serializers.ModelSerializer):
    id = serializers.CharField(max_length=255, required=False)

    class Meta:
        model = Brand
        fields = ['id', 'name', 'created_at', 'updated_at']


class SkuSerializer(serializers.ModelSerializer):
    # Foreign keys show the related record's string id, as the v1.5 API does.
    brand = serializers.SlugRelatedField(slug_field='id', queryset=Brand.objects.all(), allow_null=True, required=False)
    category = serializers.SlugRelatedField(slug_field='id', queryset=Category.objects.all(), allow_null=True, required=False)

    class Meta:
        model = Sku
        fields = ['id', 'cid', 'ean13', 'image', 'name', 'brand', 'category', 'size_x_mm', 'size_y_mm', 'size_z_mm', 'attributes']


class BrandViewSet(viewsets.ModelViewSet):
    queryset = Brand.objects.order_by('data_id')
    serializer_class = BrandSerializer
    lookup_field = 'id'

    def perform_create(self, serializer):
        serializer.save(id=serializer.validated_data.get('id') or str(uuid.uuid4()))


class SkuViewSet(viewsets.ModelViewSet):
    # One query per page, not one per foreign key of each row.
    queryset = Sku.objects.select_related('brand', 'category').order_by('data_id')
    serializer_class = SkuSerializer
    lookup_field = 'id'


router = routers.DefaultRouter()
router.register('brands', BrandViewSet)
router.register('sku', SkuViewSet)
urlpatterns = [path('api/v1.5/', include(router.urls))]
