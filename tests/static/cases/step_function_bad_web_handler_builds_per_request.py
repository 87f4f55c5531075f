import tensorflow as tf

tf1 = tf.compat.v1

from flask import Flask
app = Flask(__name__)
@app.route("/predict", methods=["POST"])
def predict():
    sess = tf1.Session()  # GL301
    return sess.run(tf.constant("hi"))  # GL102
