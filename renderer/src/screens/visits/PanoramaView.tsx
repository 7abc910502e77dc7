// The visit's photos as one picture of the shelf, or side by side where they could not be stitched.
import type { Panorama } from '../../api/types';
import { ApiImage } from '../../components/ApiImage';

export function PanoramaView({ panorama }: { panorama: Panorama }) {
  return (
    <figure className="panorama">
      <ApiImage src={panorama.url} alt="Panorama of the shelf" />
      <figcaption>
        {panorama.stitched ? `${panorama.images.length} photos stitched` : 'Photos could not be stitched; shown side by side'} ({panorama.width}×
        {panorama.height}){panorama.boxes !== undefined && `, ${panorama.boxes} products of the bay marked, each once`}
      </figcaption>
    </figure>
  );
}
