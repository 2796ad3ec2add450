#!/usr/bin/env bash
# Renders the landing page's three customer-story cards into assets/media/.
#
# Everything comes from this file: narration is spoken by espeak-ng, backgrounds are
# ffmpeg lavfi gradients, text is drawn with the DejaVu fonts, and the logos are SVG
# written below. Nothing is downloaded, so the output can be rebuilt anywhere and
# carries no third-party rights. The customers are invented.
#
# Needs: ffmpeg (with libx264, libwebp, librsvg), espeak-ng, fonts-dejavu-core.
# Usage: scripts/make-media.sh   (from anywhere; writes into the repository)
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=assets/media
FONTS=/usr/share/fonts/truetype/dejavu
SIZE_LIMIT=1000000 # the issue asks for clips well under 1 MB; the encode aims at ~300 KB

for tool in ffmpeg ffprobe espeak-ng; do
  command -v "$tool" >/dev/null || { echo "make-media: $tool is missing (apt-get install ffmpeg espeak-ng)" >&2; exit 1; }
done
[[ -f $FONTS/DejaVuSans.ttf ]] || { echo "make-media: fonts-dejavu-core is missing" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

# Glyphs drawn in white inside the logo's 48x48 coloured disc.
GLYPH_BANK='<path d="M12 20 24 12 36 20Z M14 22h20v2H14Z M15 25h3v8h-3Z M22.5 25h3v8h-3Z M30 25h3v8h-3Z M13 34h22v3H13Z" fill="#fff"/>'
GLYPH_PLANE='<path d="M35 13 12 22.5l8.5 3.2L23.8 35Z" fill="#fff"/><path d="M20.5 25.7 35 13" stroke="#5b2a86" stroke-width="1.6"/>'
GLYPH_CROSS='<path d="M20 12h8v8h8v8h-8v8h-8v-8h-8v-8h8Z" fill="#fff"/>'

# Seconds (as ffprobe prints them) to a WebVTT timestamp.
vtt_time() { awk -v s="$1" 'BEGIN { printf "%02d:%02d:%06.3f", int(s / 3600), int(s % 3600 / 60), s - int(s / 60) * 60 }'; }

# The logo is white text beside a coloured mark: it is meant to sit on the dark poster.
write_logo() { # slug title accent glyph
  local width=$((56 + ${#2} * 13 + 8))
  cat >"$OUT/logo-$1.svg" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" width="$width" height="48" viewBox="0 0 $width 48" role="img" aria-label="$2">
  <circle cx="24" cy="24" r="22" fill="#$3"/>
  $4
  <text x="56" y="31" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="19" font-weight="700" fill="#fff">$2</text>
</svg>
SVG
  # The clip shows the mark alone (the name is drawn large beside it); rendered at 2x for sharpness.
  cat >"$TMP/mark-$1.svg" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" width="88" height="88" viewBox="0 0 48 48">
  <circle cx="24" cy="24" r="22" fill="#$3"/>
  $4
</svg>
SVG
}

render() { # slug title industry voice c0 c1 c2 accent glyph quote
  local slug=$1 title=$2 industry=$3 voice=$4 c0=$5 c1=$6 c2=$7 accent=$8 glyph=$9 quote=${10}
  local wav=$TMP/$slug.wav lead=0.4
  echo "make-media: $slug"

  espeak-ng -v "$voice" -s 170 -w "$wav" "$quote"
  local spoken
  spoken=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$wav")
  # Lead-in, the sentence, and a short tail before the fade; at least 6 s so the card feels like a clip.
  local dur fade_at
  dur=$(awk -v s="$spoken" -v l="$lead" 'BEGIN { d = s + l + 0.7; if (d < 6) d = 6; printf "%.2f", d }')
  fade_at=$(awk -v d="$dur" 'BEGIN { printf "%.2f", d - 0.5 }')
  awk -v d="$dur" 'BEGIN { exit !(d <= 8) }' || { echo "make-media: the $slug quote runs ${dur}s; keep clips to 8 s" >&2; exit 1; }

  write_logo "$slug" "$title" "$accent" "$glyph"
  # drawtext reads files so that quotes, colons and "%" in the copy need no escaping.
  printf '%s' "$title" >"$TMP/$slug-title.txt"
  printf '%s' "$industry" >"$TMP/$slug-industry.txt"
  # Three balanced lines read better than two long ones ending in an orphan word.
  printf '%s' "$quote" | fold -s -w 44 | sed 's/ *$//' >"$TMP/$slug-quote.txt"
  local text="fontcolor=white:expansion=none:x=40"

  # Baseline H.264 + AAC with the index up front plays at once in every browser. One x264
  # thread (-threads 1): with a bitrate cap, threaded encodes differ from run to run, and
  # re-running the script should not dirty the committed clips.
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "gradients=s=640x360:r=24:n=3:c0=$c0:c1=$c1:c2=$c2:speed=0.015:seed=11:d=$dur" \
    -i "$wav" -i "$TMP/mark-$slug.svg" \
    -filter_complex "
      [1:a]aresample=44100,adelay=${lead}s:all=1,apad,atrim=0:$dur,asplit[audio][forwave];
      [forwave]aresample=4000,showwaves=s=560x56:mode=cline:rate=24:colors=white:draw=full,format=rgba,colorchannelmixer=aa=0.7[wave];
      [2:v]scale=44:44[mark];
      [0:v]drawbox=x=0:y=0:w=iw:h=ih:color=black@0.28:t=fill,
        drawtext=fontfile=$FONTS/DejaVuSans-Bold.ttf:text=CUSTOMER STORY:fontsize=13:fontcolor=#$accent:expansion=none:x=40:y=44,
        drawtext=fontfile=$FONTS/DejaVuSans-Bold.ttf:textfile=$TMP/$slug-title.txt:fontsize=40:$text:y=66,
        drawtext=fontfile=$FONTS/DejaVuSans.ttf:textfile=$TMP/$slug-industry.txt:fontsize=17:$text:y=118:alpha=0.75,
        drawtext=fontfile=$FONTS/DejaVuSans.ttf:textfile=$TMP/$slug-quote.txt:fontsize=21:line_spacing=8:$text:y=176:alpha='min(1,max(0,(t-0.3)/0.6))'[bg];
      [bg][mark]overlay=x=W-w-40:y=38[marked];
      [marked][wave]overlay=x=40:y=276,fade=t=in:st=0:d=0.4,fade=t=out:st=$fade_at:d=0.5,format=yuv420p[video]" \
    -map "[video]" -map "[audio]" -t "$dur" \
    -c:v libx264 -profile:v baseline -level 3.0 -preset slow -crf 31 -maxrate 240k -bufsize 480k -g 48 -threads 1 \
    -c:a aac -b:a 48k -ac 1 \
    -movflags +faststart -map_metadata -1 -fflags +bitexact -flags:v +bitexact -flags:a +bitexact \
    "$OUT/clip-$slug.mp4"

  # Poster: the clip's colours and the sentence's waveform, no text, since the card lays its title and logo over it.
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "gradients=s=640x360:n=3:c0=$c0:c1=$c1:c2=$c2:seed=11:d=1" -i "$wav" \
    -filter_complex "
      [1:a]aresample=4000,showwavespic=s=640x110:colors=#$accent:scale=sqrt,format=rgba,colorchannelmixer=aa=0.55[wave];
      [0:v]trim=end_frame=1,drawbox=x=0:y=0:w=iw:h=ih:color=black@0.28:t=fill[bg];
      [bg][wave]overlay=x=0:y=(H-h)/2+30" \
    -frames:v 1 -c:v libwebp -quality 75 -map_metadata -1 "$OUT/poster-$slug.webp"

  cat >"$OUT/captions-$slug.vtt" <<VTT
WEBVTT

00:00:00.000 --> $(vtt_time "$lead")
[$title customer story]

$(vtt_time "$lead") --> $(vtt_time "$(awk -v s="$spoken" -v l="$lead" 'BEGIN { print s + l + 0.3 }')")
$quote
VTT
}

render kestrel-bank "Kestrel Bank" "Retail banking" en-gb+f3 0x0b1f3a 0x12507a 0x1f8a8a 2fb7a8 "$GLYPH_BANK" \
  "Our assistant answers balance and card questions in seconds, so advisers focus on the calls that need them."
render aurelia-air "Aurelia Air" "Air travel" en-us+m3 0x1a1446 0x5b2a86 0xc2566a ff9f6b "$GLYPH_PLANE" \
  "When storms ground flights, the assistant rebooks thousands of travellers at once, and nobody waits on hold."
render brightwell-health "Brightwell Health" "Healthcare" en-us+f4 0x06302b 0x0f6b5c 0x2f8fb0 38c99a "$GLYPH_CROSS" \
  "Patients book and change appointments at any hour, in their own language, without waiting for a free line."

# The cards' static data; the media API turns each *Key into a fresh signed URL.
cat >"$OUT/customers.json" <<'JSON'
[
  {
    "id": "kestrel-bank",
    "title": "Kestrel Bank",
    "backgroundKey": "media/poster-kestrel-bank.webp",
    "logoKey": "media/logo-kestrel-bank.svg",
    "videoKey": "media/clip-kestrel-bank.mp4",
    "captionsKey": "media/captions-kestrel-bank.vtt"
  },
  {
    "id": "aurelia-air",
    "title": "Aurelia Air",
    "backgroundKey": "media/poster-aurelia-air.webp",
    "logoKey": "media/logo-aurelia-air.svg",
    "videoKey": "media/clip-aurelia-air.mp4",
    "captionsKey": "media/captions-aurelia-air.vtt"
  },
  {
    "id": "brightwell-health",
    "title": "Brightwell Health",
    "backgroundKey": "media/poster-brightwell-health.webp",
    "logoKey": "media/logo-brightwell-health.svg",
    "videoKey": "media/clip-brightwell-health.mp4",
    "captionsKey": "media/captions-brightwell-health.vtt"
  }
]
JSON

# Check what was made: playable streams, the right length, and small enough.
for clip in "$OUT"/clip-*.mp4; do
  bytes=$(stat -c %s "$clip")
  info=$(ffprobe -v error -show_entries format=duration:stream=codec_name,profile,width,height,pix_fmt -of compact=p=0:nk=1 "$clip" | tr '\n' ' ')
  printf 'make-media: %-40s %7d bytes  %s\n' "$clip" "$bytes" "$info"
  ((bytes < SIZE_LIMIT)) || { echo "make-media: $clip is over $SIZE_LIMIT bytes" >&2; exit 1; }
done
