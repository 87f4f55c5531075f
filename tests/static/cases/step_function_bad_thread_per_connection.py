import tensorflow as tf

tf1 = tf.compat.v1

import socket
import threading
class Server:
    def __init__(self):
        self.sock = socket.socket()
    def serve(self):
        while True:
            client, _ = self.sock.accept()
            threading.Thread(target=self.handle, args=(client,)).start()
    def handle(self, client):
        with tf1.Session() as sess:  # GL301
            client.send(sess.run(tf.constant(b"hi")))  # GL102
