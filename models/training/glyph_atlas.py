"""Renders the characters of price labels in several TrueType faces into cache/glyphs/atlas.npz, for generator.py's
style 9 (labels printed in real type, not OpenCV's Hershey strokes: section 22 of RESEARCH_LOG.md found the drawn
labels' look, not the steps, to be what the real photos lack).

Needs OpenCV's freetype module (Debian's python3-opencv has it) and the DejaVu fonts (fonts-dejavu-core,
fonts-dejavu-extra: Bitstream Vera licence, free to use and to render). The generator only reads the .npz, so a
machine without freetype or fonts (a lent GPU machine) draws the same labels from a copied atlas.

Usage: python3 glyph_atlas.py [OUT]   (default cache/glyphs/atlas.npz)
"""
import os
import sys

import cv2
import numpy as np

CHARS = '0123456789.,-/%:€$£' + 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
FONT_DIR = '/usr/share/fonts/truetype/dejavu'
FACES = ['DejaVuSans-Bold.ttf', 'DejaVuSansCondensed-Bold.ttf', 'DejaVuSerif-Bold.ttf', 'DejaVuSansMono-Bold.ttf',
         'DejaVuSans.ttf', 'DejaVuSansCondensed.ttf', 'DejaVuSerifCondensed-Bold.ttf', 'DejaVuSans-BoldOblique.ttf',
         'DejaVuSerif.ttf', 'DejaVuSansCondensed-BoldOblique.ttf']
CELL_H, PX = 80, 60  # cell height, font height: drawn from the cell's top (freetype's origin), descenders fit


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'cache/glyphs/atlas.npz')
    faces = [f for f in FACES if os.path.exists(os.path.join(FONT_DIR, f))]
    if len(faces) < 4:
        sys.exit(f'need the DejaVu fonts in {FONT_DIR} (found {faces})')
    masks, widths = [], []
    for f in faces:
        ft = cv2.freetype.createFreeType2()
        ft.loadFontData(os.path.join(FONT_DIR, f), 0)
        row_w, row = [], []
        for ch in CHARS:
            (w, _), _ = ft.getTextSize(ch, PX, -1)
            cell = np.zeros((CELL_H, 96, 3), np.uint8)  # freetype draws on 3 channels only
            ft.putText(cell, ch, (0, 0), PX, (255, 255, 255), -1, cv2.LINE_AA, False)
            row.append(cell[..., 0]); row_w.append(min(96, max(1, w)))
        masks.append(np.stack(row)); widths.append(row_w)
    base = int(np.nonzero(masks[0][CHARS.index('H')].max(1))[0].max()) + 1  # the baseline: under a capital
    os.makedirs(os.path.dirname(out) or '.', exist_ok=True)
    np.savez_compressed(out, masks=np.stack(masks), widths=np.array(widths, np.int32), chars=np.array(list(CHARS)),
                        base=base, faces=np.array(faces))
    print(f'{out}: {len(faces)} faces x {len(CHARS)} characters')


if __name__ == '__main__':
    main()
