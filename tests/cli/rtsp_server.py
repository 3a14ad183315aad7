#!/usr/bin/env python3
"""A real RTSP server for the live-camera tests: GStreamer's gst-rtsp-server (Debian
gir1.2-gst-rtsp-server-1.0, gstreamer1.0-plugins-good) serving an H.264 MP4 at rtsp://127.0.0.1:PORT/cam,
paced in real time by the server's clock, over RTP/UDP or RTP/TCP as the client asks. Prints
"ready" once it listens; runs until killed. Exit 3 when GStreamer or its RTSP server is missing.
usage: rtsp_server.py FILE.mp4 PORT"""
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstRtspServer", "1.0")
    from gi.repository import GLib, Gst, GstRtspServer
except (ImportError, ValueError) as e:
    print(f"rtsp_server: {e}", file=sys.stderr)
    sys.exit(3)

path, port = sys.argv[1], sys.argv[2]
Gst.init(None)
for element in ("qtdemux", "rtph264pay"):
    if Gst.ElementFactory.find(element) is None:
        print(f"rtsp_server: no GStreamer element {element} (gstreamer1.0-plugins-good)", file=sys.stderr)
        sys.exit(3)
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory()
# qtdemux hands rtph264pay the stream in avc form; config-interval=-1 repeats SPS/PPS with every
# key frame, so a client that joins late can start.
factory.set_launch(f'( filesrc location="{path}" ! qtdemux ! rtph264pay name=pay0 pt=96 config-interval=-1 )')
factory.set_shared(True)
server.get_mount_points().add_factory("/cam", factory)
if server.attach(None) == 0:
    print(f"rtsp_server: cannot listen on port {port}", file=sys.stderr)
    sys.exit(1)
print("ready", flush=True)
GLib.MainLoop().run()
